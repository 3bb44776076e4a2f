import { errors } from '../errors.js';
import { NodeCallFailure } from '../nodes/node-client.js';

/** Document 4 §9: a per-node route waits this long for its node. */
export const NODE_OPS_TIMEOUT_MS = 5000;

/**
 * A failure of the node client as the per-node routes answer it (document 4 §9): 502
 * `node_unreachable` (no reply, none in time), `node_auth_failed` (the node refused the token),
 * `node_bad_reply` (a status the call does not expect, or a reply not of its shape).
 */
export function asRouteError(err: unknown): unknown {
  if (!(err instanceof NodeCallFailure)) return err;
  if (err.reason === 'auth') return errors.nodeAuthFailed();
  if (err.reason === 'bad_reply' || err.reason === 'status') return errors.nodeBadReply(err.nodeStatus);
  return errors.nodeUnreachable();
}
