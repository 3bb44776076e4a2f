import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { errors } from '../errors.js';

// Keep-alive agents for every call of the plane to a node: the sweeper reaches each node every
// few seconds, so a node's connections are reused from sweep to sweep instead of a TCP (and TLS)
// handshake per read; the connection setup was most of what remained of the plane's CPU per poll
// (docs/fleet-sweep.md). node:http rather than fetch: fetch's stream machinery cost most of it.
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 4 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 4 });

/** How a raw exchange ended without a reply: no connection (or it broke), the time-out, or a reply too large. */
export class NodeExchangeFailure extends Error {
  constructor(readonly kind: 'refused' | 'timeout' | 'too_large') {
    super(kind);
    this.name = 'NodeExchangeFailure';
  }
}

/**
 * One exchange with a node with its write token, the transport under the plane's one node client
 * (node-client.ts): the status and the whole body, at most `maxBytes` of it. Redirects are not
 * followed (a 3xx is a status like any other). Rejects with a NodeExchangeFailure whose kind is a
 * fixed word: no URL, header or body text in it.
 */
export function exchange(
  url: URL,
  token: string,
  opts: { method?: string; body?: string; signal: AbortSignal; maxBytes: number },
): Promise<{ status: number; body: Buffer }> {
  const { maxBytes, signal } = opts;
  return new Promise((resolve, reject) => {
    const failed = () => {
      signal.removeEventListener('abort', abort);
      reject(new NodeExchangeFailure(signal.aborted ? 'timeout' : 'refused'));
    };
    const https = url.protocol === 'https:';
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    // The signal is watched here, not given to node:http: its `signal` option also follows the
    // request's end through stream listeners, which cost 5% of the sweeping process at 1,000
    // nodes (issue 26). The abort destroys the request, which then fails (`failed`: timeout).
    const req = (https ? httpsRequest : httpRequest)(
      url,
      { method: opts.method ?? 'GET', agent: https ? httpsAgent : httpAgent, headers },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            signal.removeEventListener('abort', abort);
            req.destroy();
            reject(new NodeExchangeFailure('too_large'));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          signal.removeEventListener('abort', abort);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
        });
        res.on('error', failed);
        res.on('aborted', failed);
      },
    );
    const abort = () => req.destroy();
    req.on('error', failed);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    req.end(opts.body);
  });
}

/**
 * A GET whose reply is read as it arrives (a node's MP4 export, which may be gigabytes): resolves
 * with the response once its headers are in, the body not read; rejects with a
 * NodeExchangeFailure. No Authorization header: the media routes take their credential from the
 * URL (`?token=`). `signal` bounds the exchange until the headers only (the caller bounds the
 * body), and the connection is its own, not the keep-alive agents': a download of minutes must not
 * hold one of the few sockets the sweeper's polls of that node share.
 */
export function openStream(url: URL, opts: { signal: AbortSignal }): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:';
    const req = (https ? httpsRequest : httpRequest)(url, { method: 'GET', agent: false }, (res) => {
      opts.signal.removeEventListener('abort', abort);
      resolve(res);
    });
    const abort = () => req.destroy();
    if (opts.signal.aborted) abort();
    else opts.signal.addEventListener('abort', abort, { once: true });
    req.on('error', () => {
      opts.signal.removeEventListener('abort', abort);
      reject(new NodeExchangeFailure(opts.signal.aborted ? 'timeout' : 'refused'));
    });
    req.end();
  });
}

/**
 * The node's URL for `path` (and query): 500 `url_build_failed` when the stored base URL does not
 * make one (a row edited by hand, a scheme the plane cannot speak). The error carries no part of it.
 */
export function nodeUrl(base: string, path: string, query: Record<string, string | number | undefined> = {}): URL {
  let u: URL;
  try {
    u = new URL(base.replace(/\/+$/, '') + path);
  } catch {
    throw errors.urlBuildFailed();
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw errors.urlBuildFailed();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
  return u;
}
