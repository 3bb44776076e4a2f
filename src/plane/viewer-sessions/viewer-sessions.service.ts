import type { Clock } from '../../common/clock.js';
import { errors } from '../errors.js';
import { isUuid } from '../http/list.js';
import type { Principal } from '../http/principal.js';
import type { NodeCall, NodesService } from '../nodes/nodes.service.js';
import type { NodeClient, NodeEndpoint } from '../nodes/node-client.js';
import type { NodeSessionRow } from '../../common/node-api.js';
import type { SessionsInventory } from './inventory.js';
import { decodeCursor, encodeCursor, type SessionsCursor } from './cursor.js';
import type { SessionsArgs, ViewerSession } from './viewer-sessions.schemas.js';
import { jsonParts, withJsonParts, type JsonParts } from './page-json.js';

/** Document 1, GET /api/v1/sessions: one request contacts at most this many nodes ... */
export const SESSIONS_NODES_PER_REQUEST = 4;
/** ... and waits this long for each. */
export const SESSIONS_NODE_TIMEOUT_MS = 2000;
export const SESSIONS_DEFAULT_LIMIT = 50;
/**
 * How long a node's answer serves the requests after it (decided in docs/node-ops.md): under
 * load (many administrators, the console's refresh) a node is asked at most once a second.
 */
export const SESSIONS_REPLY_FRESH_MS = 1000;

/** A row as a node reports it (its GET /api/v1/sessions), as the node client reads it (nodes/node-replies.ts). */
type NodeRow = NodeSessionRow;

const STREAM = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_(main|sub)$/i;

/** The camera a row is a viewer of: the one its stream is named after (`<camera id>_main|_sub`), else its token's claim. */
function cameraOf(r: NodeRow): string | null {
  const m = STREAM.exec(r.stream);
  if (m) return m[1]!.toLowerCase();
  return r.camera_id !== null && isUuid(r.camera_id) ? r.camera_id.toLowerCase() : null;
}

/**
 * A node's row with what every request reads of it, worked out once per reply (a reply is
 * shared by the requests that overlap its call, see ask): its camera and its subject's id.
 */
interface ReadRow {
  r: NodeRow;
  cam: string | null;
  subjectId: string | null;
  /** The row's text as last served, with the node and camera names it was made with (page-json.ts). */
  json?: { names: string; parts: JsonParts };
}

/** A node's answer: its rows in page order, read once, and when it was received (clock ms). */
interface Sample {
  rows: readonly ReadRow[];
  atMs: number;
}

const readRow = (r: NodeRow): ReadRow => ({
  r,
  cam: cameraOf(r),
  subjectId: isUuid(r.sub) ? r.sub.toLowerCase() : null,
});

const byStart = (a: NodeRow, b: NodeRow) =>
  a.started_at_ms - b.started_at_ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const isAfter = (r: NodeRow, k: { started_ms: number; id: string }) =>
  r.started_at_ms > k.started_ms || (r.started_at_ms === k.started_ms && r.id > k.id);

function matches(s: ViewerSession, needle: string): boolean {
  return [s.stream, s.protocol, s.client_ip, s.user_agent, s.sub, s.node_name, s.camera_name, s.subject_name].some(
    (f) => f.toLowerCase().includes(needle),
  );
}

/**
 * The fleet-wide list of live viewers (document 1 "Service endpoints", document 4 §9). The nodes
 * asked are those hosting cameras the caller may see, ascending by id; a request asks the next
 * (at most) four of them at once, each under a 2 s time-out, and one that fails is skipped and
 * named in `partial_nodes`. Each row is re-checked against the database (its camera still exists
 * and the caller may still see it) before it is returned. The cursor names the next node and the
 * last row returned of it. A page costs one query (its nodes, their tokens and the rights over
 * their cameras, read in the request) and the node calls, made at once and shared by the
 * requests that overlap them (issue 26; docs/node-ops.md).
 */
export class ViewerSessionsService {
  /** The node calls out now or answered less than freshMs ago, by node id, URL and token (see ask). */
  private readonly replies = new Map<string, { call: Promise<Sample | null>; atMs: number | null }>();

  constructor(
    private readonly clock: Clock,
    private readonly nodes: NodesService,
    private readonly inventory: SessionsInventory,
    private readonly client: NodeClient,
    private readonly opts: { nodesPerRequest: number; timeoutMs: number; freshMs: number } = {
      nodesPerRequest: SESSIONS_NODES_PER_REQUEST,
      timeoutMs: SESSIONS_NODE_TIMEOUT_MS,
      freshMs: SESSIONS_REPLY_FRESH_MS,
    },
  ) {}

  async list(p: Principal, args: SessionsArgs) {
    const limit = args.limit ?? SESSIONS_DEFAULT_LIMIT;
    if (args.q !== undefined && args.q.length > 128) throw errors.badRequest('query_too_long');
    const needle = args.q ? args.q.toLowerCase() : null;
    let camera: string | null = null;
    if (args.camera_id !== undefined) {
      camera = isUuid(args.camera_id) ? args.camera_id.toLowerCase() : null;
      const found = camera ? (await this.inventory.visibleCameras(p, [camera])).get(camera) : undefined;
      if (!found) throw errors.notFound();
    }
    const binding = { user: p.userId, camera, q: args.q ?? null };
    const cursor = args.cursor !== undefined ? decodeCursor(args.cursor, binding) : null;

    // One query: the cursor's node (or the first after it when it is gone or no longer visible)
    // and the next ones, with every camera on them and whether the caller may see it.
    const count = this.opts.nodesPerRequest;
    const page = await this.inventory.sessionsNodePage(p, { from: cursor?.node ?? null, camera, count });
    const batch = page.slice(0, count);
    const rest = page[count]?.id;
    const cameras = new Map<string, { name: string; visible: boolean }>();
    for (const n of batch) for (const [id, name, visible] of n.cameras ?? []) cameras.set(id, { name, visible });

    // Every URL is built before any node is asked: a stored URL that makes none fails the request
    // (500 url_build_failed). Then the nodes are asked at once.
    const targets = batch.map((n) => {
      const node: NodeCall = {
        id: n.id,
        name: n.name,
        enabled: n.enabled,
        url: n.url,
        apiToken: this.nodes.openApiToken(n.id, n.api_token_enc),
      };
      return { node, calls: this.client.at(node) };
    });
    const answers = await Promise.all(targets.map((t) => this.ask(t.node, t.calls)));
    const nowMs = this.clock.now();
    // The page is as old as its oldest answer (an answer serves for up to freshMs).
    const oldest = Math.min(nowMs, ...answers.map((a) => a?.atMs ?? nowMs));
    const sampledAt = Math.floor(oldest / 1000);

    // The rows of every node that answered, in page order, each with its camera.
    const partial: string[] = [];
    const perNode = targets.map((t, k) => {
      const sample = answers[k];
      if (!sample) {
        partial.push(t.node.id);
        return null;
      }
      const after = cursor && cursor.node === t.node.id ? cursor.after : null;
      const candidates: Array<ReadRow & { cam: string }> = [];
      for (const x of sample.rows) {
        if (after && !isAfter(x.r, after)) continue;
        if (x.cam !== null && (camera === null || x.cam === camera)) candidates.push(x as ReadRow & { cam: string });
      }
      // A viewer's time so far is the node's figure plus the answer's age.
      return { node: t.node, after, candidates, age: Math.max(0, nowMs - sample.atMs) };
    });
    // A row whose camera is on none of these nodes (moved, deleted): those cameras re-checked in one more query.
    const elsewhere = perNode.flatMap((n) => n?.candidates.filter((c) => !cameras.has(c.cam)).map((c) => c.cam) ?? []);
    if (elsewhere.length)
      for (const [id, c] of await this.inventory.visibleCameras(p, elsewhere))
        cameras.set(id, { name: c.name, visible: true });

    const items: ViewerSession[] = [];
    let next: SessionsCursor | null = null;
    outer: for (const n of perNode) {
      if (!n) continue;
      let last: NodeRow | null = null;
      for (const x of n.candidates) {
        const c = cameras.get(x.cam);
        if (!c?.visible) continue;
        const item = this.item(x, n.node, c.name, n.age);
        if (needle !== null && !matches(item, needle)) continue;
        if (items.length === limit) {
          next = { node: n.node.id, after: last ? { started_ms: last.started_at_ms, id: last.id } : n.after };
          break outer;
        }
        items.push(item);
        last = x.r;
      }
    }
    if (!next && rest !== undefined) next = { node: rest, after: null };
    return {
      items,
      limit,
      next_cursor: next ? encodeCursor(next, binding) : null,
      partial_nodes: partial,
      sampled_at: sampledAt,
    };
  }

  /** The row as served, its text made once per node answer and names (page-json.ts). */
  private item(x: ReadRow & { cam: string }, node: NodeCall, cameraName: string, ageMs: number): ViewerSession {
    const { r } = x;
    const item: ViewerSession = {
      stream: r.stream,
      protocol: r.protocol,
      client_ip: r.client_ip,
      user_agent: r.user_agent,
      sub: r.sub,
      connected_ms: Math.max(0, r.connected_ms) + ageMs,
      node_id: node.id,
      node_name: node.name,
      camera_id: x.cam,
      camera_name: cameraName,
      subject_kind: r.subject_kind ?? 'unknown',
      subject_id: x.subjectId,
      subject_name: r.subject_name ?? '',
    };
    const names = `${node.id}\n${node.name}\n${cameraName}`;
    if (x.json?.names !== names) x.json = { names, parts: jsonParts(item) };
    return withJsonParts(item, x.json.parts);
  }

  /**
   * The node's answer (its rows in page order, each read once: shared, their fields never changed), or null
   * when it did not answer in time, refused the token or answered nonsense. A request that comes
   * while a call to the same node (id, URL and token) is out joins that call, and one that comes
   * less than freshMs after its answer uses that answer: under load a node is asked at most once
   * per freshMs, not once per request, and its reply read once. Each request still re-checks the
   * rows against its own rights, and says how old they are (sampled_at, connected_ms). A failure
   * is not kept: the next request asks again. A clock stepped back makes an answer stale.
   */
  private ask(node: NodeCall, calls: NodeEndpoint): Promise<Sample | null> {
    const key = `${node.id}\n${node.url}\n${node.apiToken}`;
    const now = this.clock.now();
    const had = this.replies.get(key);
    if (had && this.serves(had, now)) return had.call;
    if (this.replies.size >= 256) this.forgetStale(now);
    const entry: { call: Promise<Sample | null>; atMs: number | null } = { call: Promise.resolve(null), atMs: null };
    entry.call = calls.sessionRows({ timeoutMs: this.opts.timeoutMs }).then(
      (rows) => {
        entry.atMs = this.clock.now();
        return { rows: rows.sort(byStart).map(readRow), atMs: entry.atMs };
      },
      () => {
        if (this.replies.get(key) === entry) this.replies.delete(key);
        return null;
      },
    );
    this.replies.set(key, entry);
    return entry.call;
  }

  /** Whether a call serves a request at `now`: still out, or answered less than freshMs before (not after). */
  private serves(e: { atMs: number | null }, now: number): boolean {
    return e.atMs === null || (now >= e.atMs && now - e.atMs < this.opts.freshMs);
  }

  /** Drops the answers too old to serve (nodes no longer asked, a changed URL or token). */
  private forgetStale(now: number): void {
    for (const [key, e] of this.replies) if (!this.serves(e, now)) this.replies.delete(key);
  }
}
