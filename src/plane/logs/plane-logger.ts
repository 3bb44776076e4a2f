import pino, { type Logger } from 'pino';
import type { FastifyRequest } from 'fastify';
import { LogRing } from '../../common/log-ring.js';
import { attachRing, ringSink } from '../../common/log-sink.js';
import { redactUrlParams } from '../../common/redact.js';

/** The target prefix of the plane's ring entries (docs/logs.md). */
export const PLANE_PROGRAM = 'argus_plane';

const LOG_REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'password',
  '*.password',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'api_token',
  '*.api_token',
  'auth_backend_secret',
  '*.auth_backend_secret',
];

/** Fastify's request summary, without a session token the feed's query may carry. */
function requestForLog(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrlParams(req.url, ['token', 't']),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** Pino's options for the plane: field redaction by name, the request summary without query tokens. */
export function planeLoggerOptions(level: string): pino.LoggerOptions {
  return { level, redact: { paths: LOG_REDACT, censor: '[redacted]' }, serializers: { req: requestForLog } };
}

/**
 * The plane's logger: every line pino writes at or above `level` is scrubbed, written to
 * `destination` (stdout by default) and captured in a 4096-entry ring (document 1).
 */
export function makePlaneLogger(level: string, destination?: { write(line: string): unknown }): Logger {
  const ring = new LogRing();
  const out = destination ?? pino.destination(1);
  const log = pino(planeLoggerOptions(level), ringSink(ring, out, PLANE_PROGRAM));
  attachRing(log, ring);
  return log;
}
