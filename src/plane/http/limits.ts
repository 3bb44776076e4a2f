import type { FastifyInstance } from 'fastify';

/**
 * Time-outs of the HTTP server (issue 10, finding 3). Before them a client could hold a
 * connection and a request slot for ever by sending a body slowly or not at all (200 anonymous
 * logins with unfinished bodies stayed open 75 s), and a shutdown waited on such a request.
 */
export interface HttpLimits {
  /** all request headers must have arrived by then */
  headersTimeoutMs: number;
  /** the whole request, headers and body, must have arrived by then (16 MiB uploads included) */
  requestTimeoutMs: number;
  /** a socket with no traffic either way this long is closed; SSE heartbeats every 15 s keep streams open */
  idleTimeoutMs: number;
  /** an idle keep-alive connection between two requests */
  keepAliveTimeoutMs: number;
  /** at shutdown, requests still running this long after the listener closed are cut off */
  drainMs: number;
}

export const HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  drainMs: 5_000,
};

/** The Fastify options that apply `limits`. */
export function serverTimeouts(limits: HttpLimits) {
  return {
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      // Node checks the header and request time-outs on this interval (30 s by default).
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, limits.headersTimeoutMs / 2)),
    },
  };
}

/**
 * Closes the server: no new connections, idle ones closed at once, running requests get
 * `drainMs` to finish, then every connection left (a stalled client) is cut.
 */
export async function closeWithin(app: FastifyInstance, drainMs: number): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections?.(), drainMs);
  cut.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
