import { NodeCallFailure, type NodeClient, type NodeTarget } from '../nodes/node-client.js';
import type { NodeStream, NodeSystem } from '../nodes/node-replies.js';

/**
 * What the sweeper reads of a node (document 4 §6): `GET /api/v1/system` and `GET /api/v1/streams`
 * through the plane's node client, both under one time-out.
 */
export type PollResult =
  | { reachable: true; system: NodeSystem; streams: NodeStream[] | null; errors?: string[] }
  | { reachable: false; reason: string; errors?: string[] };

/**
 * Why a read failed, in the sweeper's two vocabularies. `reason`: what the node_unreachable event
 * carries (`timeout`, `connection_failed`, `http_<status>`, `bad_reply`); `word`: the short word
 * of the sweep report (document 4 §9: `timeout`, `refused`, `http <status>`, `bad_body`).
 * Anything but a 200 is `http_<status>`, the node's refusal of the token (401/403) included.
 */
function whyOf(err: unknown): { reason: string; word: string } {
  if (!(err instanceof NodeCallFailure)) return { reason: 'bad_reply', word: 'bad_body' };
  if (err.reason === 'timeout') return { reason: 'timeout', word: 'timeout' };
  if (err.reason === 'refused') return { reason: 'connection_failed', word: 'refused' };
  if (err.nodeStatus !== null && err.nodeStatus !== 200)
    return { reason: `http_${err.nodeStatus}`, word: `http ${err.nodeStatus}` };
  return { reason: 'bad_reply', word: 'bad_body' };
}

/**
 * Polls one node. The node is reachable when `/api/v1/system` answers 200 with a system body in
 * time; `streams` is null when the stream list failed on a node that is otherwise reachable
 * (its cameras are then left as they were). `errors`: the short words of what failed.
 */
export async function pollNode(client: NodeClient, target: NodeTarget, timeoutMs: number): Promise<PollResult> {
  let node;
  try {
    node = client.at(target);
  } catch {
    // A stored URL that makes no request URL: no connection can be made.
    return { reachable: false, reason: 'connection_failed', errors: ['refused'] };
  }
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    const [system, streams] = await Promise.allSettled([
      node.system({ signal: ctl.signal }),
      node.streams({ signal: ctl.signal }),
    ]);
    if (system.status === 'rejected') {
      const why = whyOf(system.reason);
      return { reachable: false, reason: why.reason, errors: [why.word] };
    }
    return {
      reachable: true,
      system: system.value,
      streams: streams.status === 'fulfilled' ? streams.value : null,
      errors: streams.status === 'rejected' ? [whyOf(streams.reason).word] : [],
    };
  } finally {
    clearTimeout(timer);
  }
}
