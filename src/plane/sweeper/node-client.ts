/**
 * What the sweeper reads of a node (document 4 §6): `GET /api/v1/system` and `GET /api/v1/streams`
 * with the node's write token, both under one time-out. The token travels only in the
 * Authorization header; no failure text carries it (reasons are fixed words).
 */
export interface NodeSystem { version: string }
export interface NodeStream { name: string; state: string }

export type PollResult =
  | { reachable: true; system: NodeSystem; streams: NodeStream[] | null }
  | { reachable: false; reason: string };

/** Why a node counts as unreachable: `timeout`, `connection_failed`, `http_<status>`, `bad_reply`. */
class PollFailure extends Error {}

async function getJson(url: string, token: string, signal: AbortSignal): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, signal, redirect: 'error' });
  } catch (err) {
    throw new PollFailure(signal.aborted ? 'timeout' : 'connection_failed', { cause: err });
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {});
    throw new PollFailure(`http_${res.status}`);
  }
  try { return await res.json(); } catch { throw new PollFailure(signal.aborted ? 'timeout' : 'bad_reply'); }
}

function systemOf(body: unknown): NodeSystem {
  const b = body as { version?: unknown } | null;
  if (!b || typeof b !== 'object' || typeof b.version !== 'string') throw new PollFailure('bad_reply');
  return { version: b.version.slice(0, 128) };
}

function streamsOf(body: unknown): NodeStream[] | null {
  const rows = (body as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows)) return null;
  return rows.flatMap((r) => (r && typeof r === 'object' && typeof r.name === 'string' && typeof r.state === 'string' ? [{ name: r.name, state: r.state }] : []));
}

/**
 * Polls one node. The node is reachable when `/api/v1/system` answers 200 with a system body in
 * time; `streams` is null when the stream list failed on a node that is otherwise reachable
 * (its cameras are then left as they were).
 */
export async function pollNode(baseUrl: string, token: string, timeoutMs: number): Promise<PollResult> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    const [system, streams] = await Promise.allSettled([
      getJson(`${baseUrl}/api/v1/system`, token, ctl.signal).then(systemOf),
      getJson(`${baseUrl}/api/v1/streams`, token, ctl.signal).then(streamsOf),
    ]);
    if (system.status === 'rejected') {
      const err = system.reason;
      return { reachable: false, reason: err instanceof PollFailure ? err.message : 'bad_reply' };
    }
    return { reachable: true, system: system.value, streams: streams.status === 'fulfilled' ? streams.value : null };
  } finally {
    clearTimeout(timer);
  }
}
