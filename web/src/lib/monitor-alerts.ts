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

/** The alert conditions of document 1's monitoring guidance that one summary can tell. */
export function alertsOf(s: Summary): string[] {
  const out: string[] = [];
  if (s.nodes_reachable < s.nodes_total)
    out.push(`${s.nodes_total - s.nodes_reachable} of ${s.nodes_total} nodes did not answer`);
  if (s.streams_failing > 0) out.push(`${s.streams_failing} streams failing`);
  if ((s.cameras_failing ?? 0) > 0) out.push(`${s.cameras_failing} cameras failing`);
  if ((s.cameras_unavailable ?? 0) > 0) out.push(`${s.cameras_unavailable} cameras unavailable`);
  if (s.nodes_unlicensed > 0 || s.nodes_grace > 0)
    out.push(`licences: ${s.nodes_unlicensed} unlicensed, ${s.nodes_grace} in grace`);
  if ((s.stream_samples_stale ?? 0) > 0) out.push(`${s.stream_samples_stale} nodes without a stream count this sweep`);
  return out;
}
