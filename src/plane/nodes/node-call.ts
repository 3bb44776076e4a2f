import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { errors } from '../errors.js';

/** Replies above this are not a node's (a config, a log page of 1000 entries of 4 KiB stay well below). */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

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
 * One exchange with a node with its write token, the only HTTP client of the plane towards
 * nodes (the sweeper's polls and callNode below): the status and the whole body, at most
 * `maxBytes` of it. Redirects are not followed (a 3xx is a status like any other). Rejects with
 * a NodeExchangeFailure whose kind is a fixed word: no URL, header or body text in it.
 */
export function exchange(
  url: URL,
  token: string,
  opts: { method?: string; body?: string; signal: AbortSignal; maxBytes?: number },
): Promise<{ status: number; body: Buffer }> {
  const maxBytes = opts.maxBytes ?? MAX_REPLY_BYTES;
  return new Promise((resolve, reject) => {
    const failed = () => reject(new NodeExchangeFailure(opts.signal.aborted ? 'timeout' : 'refused'));
    const https = url.protocol === 'https:';
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const req = (https ? httpsRequest : httpRequest)(
      url,
      { method: opts.method ?? 'GET', signal: opts.signal, agent: https ? httpsAgent : httpAgent, headers },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            req.destroy();
            reject(new NodeExchangeFailure('too_large'));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', failed);
        res.on('aborted', failed);
      },
    );
    req.on('error', failed);
    req.end(opts.body);
  });
}

export interface NodeTarget {
  url: string;
  apiToken: string;
}

/** How a call to a node failed; the reason words are fixed (no URL, header or body text in them). */
export class NodeCallFailure extends Error {
  constructor(
    readonly reason: 'timeout' | 'refused' | 'auth' | 'bad_reply',
    readonly nodeStatus: number | null = null,
  ) {
    super(reason);
    this.name = 'NodeCallFailure';
  }
}

export interface NodeReply {
  status: number;
  body: unknown;
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

/**
 * One request to a node with its write token (the per-node routes, the fleet session list, the
 * cameras' stream writes), bounded by `timeoutMs` for the whole exchange
 * (headers and body). Resolves with any status other than 401/403, which mean the node refused
 * the token (`auth`); a connection that fails or a time-out rejects with a NodeCallFailure. The
 * token travels only in the Authorization header and no failure carries it.
 */
export async function callNode(
  target: NodeTarget,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: URL,
  opts: { body?: unknown; timeoutMs: number },
): Promise<NodeReply> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), opts.timeoutMs);
  try {
    let res: { status: number; body: Buffer };
    try {
      res = await exchange(url, target.apiToken, {
        method,
        body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
        signal: ctl.signal,
      });
    } catch (err) {
      if (err instanceof NodeExchangeFailure && err.kind === 'too_large') throw new NodeCallFailure('bad_reply');
      throw new NodeCallFailure(ctl.signal.aborted ? 'timeout' : 'refused');
    }
    if (res.status === 401 || res.status === 403) throw new NodeCallFailure('auth', res.status);
    let body: unknown = null;
    try {
      body = res.body.length === 0 ? null : JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new NodeCallFailure('bad_reply', res.status);
    }
    return { status: res.status, body };
  } finally {
    clearTimeout(timer);
  }
}
