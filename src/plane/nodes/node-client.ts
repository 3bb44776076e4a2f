import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  NodeChangeReply,
  NodeConfigReply,
  NodeHistoryReply,
  NodeLogPage,
  NodeProbeReply,
  NodeSnapshotReply,
  NodeRollbackReply,
  NodeSessionsReply,
  type NodeHistoryEntry,
  type NodeSessionRow,
} from '../../common/node-api.js';
import type { Readable } from 'node:stream';
import { exchange, NodeExchangeFailure, nodeUrl, openStream } from './node-transport.js';
import {
  licenseOf,
  sessionsOf,
  streamsOf,
  systemOf,
  type NodeLicense,
  type NodeStream,
  type NodeSystem,
} from './node-replies.js';

/**
 * The plane's one client of its nodes (document 4 §3, §6, §9): every call the plane makes to a
 * node (the sweeper's polls, the cameras' stream writes, the per-node routes, the fleet session
 * list) goes through a NodeClient, built once by the nodes domain and handed to the others by
 * their factories. Each call answers the node's reply read against the schemas the node
 * serialises with (src/common/node-api.ts), or fails with a NodeCallFailure. The token travels
 * only in the Authorization header; no failure carries it, nor the URL or the node's text.
 */
export interface NodeTarget {
  url: string;
  apiToken: string;
}

/** `timeoutMs`: the bound of the whole exchange (headers and body); `signal`: the caller's own bound (the sweeper's one time-out for a poll). */
export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A stream as the plane writes it (the node's PUT /api/v1/streams/{name} body). */
export interface StreamSpec {
  input: string;
  dvr: { storage: string; retention: string } | null;
  on_demand: boolean;
}

/** The rollback's reply; `write_token_kept` is absent from older nodes. */
const RollbackRead = Type.Object({
  ...NodeRollbackReply.properties,
  write_token_kept: Type.Optional(Type.Boolean()),
});
export type NodeRollback = Static<typeof RollbackRead>;

const LogPage = Compile(NodeLogPage);
const Config = Compile(NodeConfigReply);
const History = Compile(NodeHistoryReply);
const Change = Compile(NodeChangeReply);
const Rollback = Compile(RollbackRead);
const Sessions = Compile(NodeSessionsReply);
const Probe = Compile(NodeProbeReply);
const Snapshot = Compile(NodeSnapshotReply);

/**
 * How a call failed; the reason words are fixed. `timeout`, `refused`: no reply (no connection,
 * or none in time); `auth`: 401/403, the node refused the token; `status`: another status than
 * the call expects; `bad_reply`: a body that is not JSON, too large, or not of the reply's shape.
 */
export class NodeCallFailure extends Error {
  // Private: an error's own fields reach the logs (pino's serialiser), the node's text must not.
  readonly #refusal: unknown;

  constructor(
    readonly reason: 'timeout' | 'refused' | 'auth' | 'status' | 'bad_reply',
    readonly nodeStatus: number | null = null,
    refusal?: unknown,
  ) {
    super(reason);
    this.name = 'NodeCallFailure';
    this.#refusal = refusal;
  }

  /** The node's JSON body of a `status` failure (its refusal of a change: `{error, problems, message}`). */
  refusal(): unknown {
    return this.#refusal;
  }
}

export interface NodeClientOptions {
  /** a call's bound when the caller gives none (document 4 §9: 5 s) */
  timeoutMs: number;
  /** replies above this are not a node's (a config, a log page of 1000 entries of 4 KiB stay well below) */
  maxReplyBytes: number;
  /** the bound of the sweeper's reads (system, streams): above it a reply is not a system body or stream list */
  maxPollReplyBytes: number;
}

const NODE_CLIENT_DEFAULTS: NodeClientOptions = {
  timeoutMs: 5000,
  maxReplyBytes: 16 * 1024 * 1024,
  maxPollReplyBytes: 8 << 20,
};

interface Call<T> {
  method: 'GET' | 'PUT' | 'PATCH' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** the statuses that are an answer; any other fails as `status` */
  ok: readonly number[];
  /** the reply read, null when it is not of the call's shape */
  read: (body: unknown, status: number) => T | null;
  maxBytes?: number;
}

export class NodeClient {
  readonly options: NodeClientOptions;

  constructor(options: Partial<NodeClientOptions> = {}) {
    this.options = { ...NODE_CLIENT_DEFAULTS, ...options };
  }

  /** The calls to one node: 500 `url_build_failed` here when its stored URL makes no http(s) URL. */
  at(target: NodeTarget): NodeEndpoint {
    nodeUrl(target.url, '/');
    return new NodeEndpoint(this, { url: target.url, apiToken: target.apiToken });
  }

  /** One call: the reply read by `call.read`, or a NodeCallFailure. */
  async call<T>(target: NodeTarget, call: Call<T>, o: CallOptions = {}): Promise<T> {
    const ctl = new AbortController();
    const timer = o.signal === undefined ? setTimeout(() => ctl.abort(), o.timeoutMs ?? this.options.timeoutMs) : null;
    const signal = o.signal ?? ctl.signal;
    try {
      let res: { status: number; body: Buffer };
      try {
        res = await exchange(nodeUrl(target.url, call.path, call.query), target.apiToken, {
          method: call.method,
          body: call.body !== undefined ? JSON.stringify(call.body) : undefined,
          signal,
          maxBytes: call.maxBytes ?? this.options.maxReplyBytes,
        });
      } catch (err) {
        if (err instanceof NodeExchangeFailure && err.kind === 'too_large') throw new NodeCallFailure('bad_reply');
        throw new NodeCallFailure(signal.aborted ? 'timeout' : 'refused');
      }
      if (res.status === 401 || res.status === 403) throw new NodeCallFailure('auth', res.status);
      let body: unknown = null;
      try {
        body = res.body.length === 0 ? null : JSON.parse(res.body.toString('utf8'));
      } catch {
        throw new NodeCallFailure('bad_reply', res.status);
      }
      if (!call.ok.includes(res.status)) throw new NodeCallFailure('status', res.status, body);
      const value = call.read(body, res.status);
      if (value === null) throw new NodeCallFailure('bad_reply', res.status);
      return value;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }
}

/** A node's reply read as it arrives: the body not yet read, its length when the node said it. */
export interface NodeDownload {
  body: Readable;
  length: number | null;
}

const BODY_IDLE_MS = 30_000;
// A refusal's JSON body is small ({error, message, stream}); more than this is not one.
const MAX_REFUSAL_BYTES = 64 * 1024;

/**
 * A GET of a node's media file (its MP4 export): the reply's body as a stream once the node
 * answered 200 within `timeoutMs` (until its headers: the node makes the whole file first). A
 * 401/403 fails as `auth`, another status as `status` with the node's JSON body as `refusal()`.
 */
async function download(
  target: { url: string },
  path: string,
  query: Record<string, string | number | undefined>,
  timeoutMs: number,
): Promise<NodeDownload> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  let res;
  try {
    res = await openStream(nodeUrl(target.url, path, query), { signal: ctl.signal });
  } catch {
    throw new NodeCallFailure(ctl.signal.aborted ? 'timeout' : 'refused');
  } finally {
    clearTimeout(timer);
  }
  const status = res.statusCode ?? 0;
  if (status === 200) {
    // Past the headers no bound of the whole exchange: a node whose body stalls this long is cut instead.
    res.setTimeout(BODY_IDLE_MS, () => res.destroy(new Error('node body stalled')));
    const length = Number(res.headers['content-length']);
    return { body: res, length: Number.isSafeInteger(length) && length >= 0 ? length : null };
  }
  if (status === 401 || status === 403) {
    res.destroy();
    throw new NodeCallFailure('auth', status);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const c of res) {
      size += (c as Buffer).length;
      if (size > MAX_REFUSAL_BYTES) break;
      chunks.push(c as Buffer);
    }
  } catch {
    // a refusal cut short is still a refusal of that status
  }
  res.destroy();
  let refusal: unknown;
  try {
    refusal = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    refusal = null;
  }
  throw new NodeCallFailure('status', status, refusal);
}

const checked =
  <T>(v: { Check(x: unknown): x is T }) =>
  (body: unknown): T | null =>
    v.Check(body) ? body : null;

/** The calls to one node, each with its path, the statuses that answer it and the shape of its reply. */
export class NodeEndpoint {
  constructor(
    private readonly client: NodeClient,
    private readonly target: NodeTarget,
  ) {}

  /** `GET /api/v1/system` (200): the version, and the telemetry, storages and licence signal where well formed. */
  system(o?: CallOptions): Promise<NodeSystem> {
    const maxBytes = this.client.options.maxPollReplyBytes;
    return this.client.call(
      this.target,
      { method: 'GET', path: '/api/v1/system', ok: [200], read: systemOf, maxBytes },
      o,
    );
  }

  /** `GET /api/v1/streams` (200): the node's streams. */
  streams(o?: CallOptions): Promise<NodeStream[]> {
    const maxBytes = this.client.options.maxPollReplyBytes;
    return this.client.call(
      this.target,
      { method: 'GET', path: '/api/v1/streams', ok: [200], read: streamsOf, maxBytes },
      o,
    );
  }

  /** `PUT /api/v1/streams/{name}`: whether the node created the stream (201) or replaced it (200). */
  putStream(name: string, spec: StreamSpec, o?: CallOptions): Promise<'created' | 'replaced'> {
    const path = `/api/v1/streams/${encodeURIComponent(name)}`;
    const read = (_: unknown, status: number) => (status === 201 ? ('created' as const) : ('replaced' as const));
    return this.client.call(this.target, { method: 'PUT', path, body: spec, ok: [200, 201], read }, o);
  }

  /** `DELETE /api/v1/streams/{name}`: `absent` when the node had no such stream (its 404). */
  deleteStream(name: string, o?: CallOptions): Promise<'deleted' | 'absent'> {
    const path = `/api/v1/streams/${encodeURIComponent(name)}`;
    const read = (_: unknown, status: number) => (status === 404 ? ('absent' as const) : ('deleted' as const));
    return this.client.call(this.target, { method: 'DELETE', path, ok: [200, 404], read }, o);
  }

  /** `GET /api/v1/sessions` (200): the node's live viewers as it reports them, every row of the node's shape. */
  sessions(o?: CallOptions): Promise<Static<typeof NodeSessionsReply>> {
    const read = checked(Sessions);
    return this.client.call(this.target, { method: 'GET', path: '/api/v1/sessions', ok: [200], read }, o);
  }

  /** `GET /api/v1/sessions` (200) for the fleet-wide list: the rows it can use, any other left out (node-replies.ts). */
  sessionRows(o?: CallOptions): Promise<NodeSessionRow[]> {
    return this.client.call(this.target, { method: 'GET', path: '/api/v1/sessions', ok: [200], read: sessionsOf }, o);
  }

  /** `GET /api/v1/logs` (200): a page of the node's ring, the query forwarded as given. */
  logs(query: Record<string, string | number | undefined>, o?: CallOptions): Promise<NodeLogPage> {
    const read = checked(LogPage);
    return this.client.call(this.target, { method: 'GET', path: '/api/v1/logs', query, ok: [200], read }, o);
  }

  /** `GET /api/v1/license` (200). */
  license(o?: CallOptions): Promise<NodeLicense> {
    return this.client.call(this.target, { method: 'GET', path: '/api/v1/license', ok: [200], read: licenseOf }, o);
  }

  /** `GET /api/v1/config` (200): the configuration text, which holds the node's secrets. */
  config(o?: CallOptions): Promise<NodeConfigReply> {
    return this.client.call(
      this.target,
      { method: 'GET', path: '/api/v1/config', ok: [200], read: checked(Config) },
      o,
    );
  }

  /** `GET /api/v1/config/history` (200): the configuration's versions, oldest first. */
  configHistory(o?: CallOptions): Promise<NodeHistoryEntry[]> {
    const read = checked(History);
    return this.client.call(this.target, { method: 'GET', path: '/api/v1/config/history', ok: [200], read }, o);
  }

  /** `PATCH /api/v1/config/globals` (200); a refusal fails as `status` with the node's body as its `refusal()`. */
  patchGlobals(change: object, o?: CallOptions): Promise<NodeChangeReply> {
    const read = checked(Change);
    return this.client.call(
      this.target,
      { method: 'PATCH', path: '/api/v1/config/globals', body: change, ok: [200], read },
      o,
    );
  }

  /** `POST /api/v1/config/rollback` (200); an epoch the node does not know fails as `status` 404. */
  rollback(epoch: number, o?: CallOptions): Promise<NodeRollback> {
    const read = checked(Rollback);
    return this.client.call(
      this.target,
      { method: 'POST', path: '/api/v1/config/rollback', body: { epoch }, ok: [200], read },
      o,
    );
  }

  /**
   * `GET /{stream}/export-{from}-{secs}.mp4?token=` (document 3): the recorded range as one MP4,
   * its body streamed. The credential is a viewer token in the URL (the media surface), not the
   * write token. `timeoutMs` bounds the wait for the node's headers, which come once the file is made.
   */
  exportMp4(stream: string, from: number, secs: number, viewerToken: string, timeoutMs: number): Promise<NodeDownload> {
    const path = `/${encodeURIComponent(stream)}/export-${from}-${secs}.mp4`;
    return download(this.target, path, { token: viewerToken }, timeoutMs);
  }

  /** `POST /api/v1/probe` (200): the node opens `url` once (document 4 §12); give it the node's 10 s and a margin. */
  probe(url: string, o?: CallOptions): Promise<NodeProbeReply> {
    const read = checked(Probe);
    return this.client.call(this.target, { method: 'POST', path: '/api/v1/probe', body: { url }, ok: [200], read }, o);
  }

  /** `POST /api/v1/probe/snapshot` (200): one frame of `url` as a base64 JPEG, or why not; the probe's bound. */
  snapshot(url: string, o?: CallOptions): Promise<NodeSnapshotReply> {
    const read = checked(Snapshot);
    return this.client.call(
      this.target,
      { method: 'POST', path: '/api/v1/probe/snapshot', body: { url }, ok: [200], read },
      o,
    );
  }
}
