import { errors } from '../errors.js';
import { NodeCallFailure } from '../nodes/node-call.js';

/** Document 4 §9: a per-node route waits this long for its node. */
export const NODE_OPS_TIMEOUT_MS = 5000;

/** A failure as the per-node routes answer it (document 4 §9): 502 `node_unreachable` or `node_auth_failed`. */
export function asRouteError(err: unknown): unknown {
  if (!(err instanceof NodeCallFailure)) return err;
  if (err.reason === 'auth') return errors.nodeAuthFailed();
  if (err.reason === 'bad_reply') return errors.nodeBadReply(err.nodeStatus);
  return errors.nodeUnreachable();
}
