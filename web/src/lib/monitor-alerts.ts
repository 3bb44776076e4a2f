/** The fleet summary (document 1); frames of its stream may omit the stale and camera split counters. */
export interface Summary {
  seq: number;
  sampled_at: string;
  nodes_total: number;
  nodes_reachable: number;
  stream_samples_stale?: number;
  streams_total: number;
  streams_live: number;
  streams_degraded: number;
  streams_failing: number;
  cameras_total: number;
  cameras_live: number;
  cameras_unavailable?: number;
  cameras_degraded?: number;
  cameras_failing?: number;
  nodes_unlicensed: number;
  nodes_grace: number;
}

/**
 * What names the summary's counts (the summary itself carries counts only, document 1): the
 * nodes with their latest telemetry frame, the cameras with their status, the licence states
 * read so far. Any of them may be missing: the alert then says the count alone.
 */
export interface Named {
  nodes?: ReadonlyArray<{ id: string; name: string; state?: string }>;
  /** The latest frame of each node, by id. */
  frames?: Readonly<
    Record<string, { reachable: boolean; system_telemetry: null | { stream_counts: Record<string, number> } }>
  >;
  cameras?: ReadonlyArray<{ name: string; status: string }>;
  /** Each node's licence state (`valid`, `grace`, `unlicensed`…), by id, for those read. */
  licences?: Readonly<Record<string, string>>;
}

/** At most 5 names, then how many more: an alert stays one line on a fleet of hundreds. */
export function namesOf(names: readonly string[]): string {
  if (!names.length) return '';
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}
const named = (count: string, names: readonly string[]) => (names.length ? `${count}: ${namesOf(names)}` : count);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The alert conditions of document 1's monitoring guidance that one summary can tell, naming what they count. */
export function alertsOf(s: Summary, by: Named = {}): string[] {
  const out: string[] = [];
  const nodes = by.nodes ?? [];
  const frame = (id: string) => by.frames?.[id];
  const nodeNames = (test: (n: { id: string; name: string; state?: string }) => boolean) =>
    nodes.filter(test).map((n) => n.name);
  const cameraNames = (status: string) => (by.cameras ?? []).filter((c) => c.status === status).map((c) => c.name);

  if (s.nodes_reachable < s.nodes_total)
    out.push(
      named(
        `${s.nodes_total - s.nodes_reachable} of ${plural(s.nodes_total, 'node')} did not answer`,
        nodeNames((n) => {
          const f = frame(n.id);
          return f ? !f.reachable : n.state === 'unreachable';
        }),
      ),
    );
  if (s.streams_failing > 0) {
    const on = nodes
      .map((n) => ({ name: n.name, failing: frame(n.id)?.system_telemetry?.stream_counts.failing ?? 0 }))
      .filter((n) => n.failing > 0)
      .map((n) => `${n.name} (${n.failing})`);
    out.push(named(`${plural(s.streams_failing, 'stream')} failing`, on.length ? [`on ${on[0]}`, ...on.slice(1)] : []));
  }
  if ((s.cameras_failing ?? 0) > 0)
    out.push(named(`${plural(s.cameras_failing!, 'camera')} failing`, cameraNames('failing')));
  if ((s.cameras_unavailable ?? 0) > 0)
    out.push(named(`${plural(s.cameras_unavailable!, 'camera')} unavailable`, cameraNames('unavailable')));
  if (s.nodes_unlicensed > 0 || s.nodes_grace > 0) {
    const state = (want: string) => nodeNames((n) => by.licences?.[n.id] === want);
    const unlicensed = state('unlicensed'),
      grace = state('grace');
    out.push(
      `licences: ${s.nodes_unlicensed} unlicensed${unlicensed.length ? ` (${namesOf(unlicensed)})` : ''}, ` +
        `${s.nodes_grace} in grace${grace.length ? ` (${namesOf(grace)})` : ''}`,
    );
  }
  if ((s.stream_samples_stale ?? 0) > 0)
    out.push(
      named(
        `${plural(s.stream_samples_stale!, 'node')} without a stream count this sweep`,
        nodeNames((n) => {
          const f = frame(n.id);
          return !!f && f.reachable && !f.system_telemetry;
        }),
      ),
    );
  return out;
}
