import { pino, type Logger } from 'pino';
import { LogRing } from '../../common/log-ring.js';
import { attachRing, ringSink, type LineWriter } from '../../common/log-sink.js';

/** The target prefix of the node's ring entries (docs/logs.md). */
export const NODE_PROGRAM = 'argus_node';

/**
 * The node's logger (document 4 section 9): every line at or above `level` is scrubbed, written
 * to `destination` (stdout by default) and captured in the node's own 4096-entry ring.
 */
export function makeNodeLogger(level: string, destination?: LineWriter): Logger {
  const ring = new LogRing();
  const log = pino(
    { level, base: { program: 'argus-node' } },
    ringSink(ring, destination ?? pino.destination(1), NODE_PROGRAM),
  );
  attachRing(log, ring);
  return log;
}
