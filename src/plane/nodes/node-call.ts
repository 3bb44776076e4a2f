import { errors } from '../errors.js';

/** Replies above this are not a node's (a config, a log page of 1000 entries of 4 KiB stay well below). */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

export interface NodeTarget { url: string; apiToken: string }

/** How a call to a node failed; the reason words are fixed (no URL, header or body text in them). */
export class NodeCallFailure extends Error {
  constructor(readonly reason: 'timeout' | 'refused' | 'auth' | 'bad_reply', readonly nodeStatus: number | null = null) {
    super(reason);
    this.name = 'NodeCallFailure';
  }
}

export interface NodeReply { status: number; body: unknown }

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
export async function callNode(target: NodeTarget, method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', url: URL, opts: { body?: unknown; timeoutMs: number }): Promise<NodeReply> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), opts.timeoutMs);
  try {
    let res: Response;
    try {
      res = await fetch(url, {
        method, signal: ctl.signal, redirect: 'error',
        headers: {
          authorization: `Bearer ${target.apiToken}`, accept: 'application/json',
          ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
      });
    } catch {
      throw new NodeCallFailure(ctl.signal.aborted ? 'timeout' : 'refused');
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel().catch(() => {});
      throw new NodeCallFailure('auth', res.status);
    }
    let text: string;
    try {
      text = await res.text();
    } catch {
      throw new NodeCallFailure(ctl.signal.aborted ? 'timeout' : 'refused');
    }
    if (text.length > MAX_REPLY_BYTES) throw new NodeCallFailure('bad_reply', res.status);
    let body: unknown = null;
    try { body = text === '' ? null : JSON.parse(text); } catch { throw new NodeCallFailure('bad_reply', res.status); }
    return { status: res.status, body };
  } finally {
    clearTimeout(timer);
  }
}
