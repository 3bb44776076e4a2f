import { epochSeconds, type Clock } from '../../common/clock.js';
import { errors } from '../errors.js';
import { isUuid } from '../http/list.js';
import type { Principal } from '../http/principal.js';
import type { NodeCall, NodesService } from '../nodes/nodes.service.js';
import type { NodeClient, NodeEndpoint } from '../nodes/node-client.js';
import type { NodeSessionRow } from '../../common/node-api.js';
import type { SessionsInventory } from './inventory.js';
import { decodeCursor, encodeCursor, type SessionsCursor } from './cursor.js';
import type { SessionsArgs, ViewerSession } from './viewer-sessions.schemas.js';

/** Document 1, GET /api/v1/sessions: one request contacts at most this many nodes ... */
export const SESSIONS_NODES_PER_REQUEST = 4;
/** ... and waits this long for each. */
export const SESSIONS_NODE_TIMEOUT_MS = 2000;
export const SESSIONS_DEFAULT_LIMIT = 50;

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
  /** The node calls out now, by node id, URL and token (see ask). */
  private readonly inFlight = new Map<string, Promise<readonly ReadRow[] | null>>();

  constructor(
    private readonly clock: Clock,
    private readonly nodes: NodesService,
    private readonly inventory: SessionsInventory,
    private readonly client: NodeClient,
    private readonly opts: { nodesPerRequest: number; timeoutMs: number } = {
      nodesPerRequest: SESSIONS_NODES_PER_REQUEST,
      timeoutMs: SESSIONS_NODE_TIMEOUT_MS,
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
    const sampledAt = epochSeconds(this.clock);

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

    // The rows of every node that answered, in page order, each with its camera.
    const partial: string[] = [];
    const perNode = targets.map((t, k) => {
      const rows = answers[k];
      if (rows === null) {
        partial.push(t.node.id);
        return null;
      }
      const after = cursor && cursor.node === t.node.id ? cursor.after : null;
      const candidates: Array<{ r: NodeRow; cam: string; subjectId: string | null }> = [];
      for (const x of rows) {
        if (after && !isAfter(x.r, after)) continue;
        if (x.cam !== null && (camera === null || x.cam === camera))
          candidates.push({ r: x.r, cam: x.cam, subjectId: x.subjectId });
      }
      return { node: t.node, after, candidates };
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
      for (const { r, cam, subjectId } of n.candidates) {
        const c = cameras.get(cam);
        if (!c?.visible) continue;
        const item = this.item(r, n.node, cam, c.name, subjectId);
        if (needle !== null && !matches(item, needle)) continue;
        if (items.length === limit) {
          next = { node: n.node.id, after: last ? { started_ms: last.started_at_ms, id: last.id } : n.after };
          break outer;
        }
        items.push(item);
        last = r;
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

  private item(
    r: NodeRow,
    node: NodeCall,
    cameraId: string,
    cameraName: string,
    subjectId: string | null,
  ): ViewerSession {
    return {
      stream: r.stream,
      protocol: r.protocol,
      client_ip: r.client_ip,
      user_agent: r.user_agent,
      sub: r.sub,
      connected_ms: Math.max(0, r.connected_ms),
      node_id: node.id,
      node_name: node.name,
      camera_id: cameraId,
      camera_name: cameraName,
      subject_kind: r.subject_kind ?? 'unknown',
      subject_id: subjectId,
      subject_name: r.subject_name ?? '',
    };
  }

  /**
   * The node's rows in page order, each read once (shared: never changed), or null when it did not answer in
   * time, refused the token or answered nonsense. A request that comes while a call to the same
   * node (id, URL and token) is out joins that call rather than making another: under load (many
   * administrators, the console's refresh) a node is asked once per round trip, not once per
   * request, and its reply read once. The rows are then at most one round trip (under the 2 s
   * bound) older than the request; each request still re-checks them against its own rights.
   */
  private ask(node: NodeCall, calls: NodeEndpoint): Promise<readonly ReadRow[] | null> {
    const key = `${node.id}\n${node.url}\n${node.apiToken}`;
    const out = this.inFlight.get(key);
    if (out) return out;
    const call = calls.sessionRows({ timeoutMs: this.opts.timeoutMs }).then(
      (rows) => rows.sort(byStart).map(readRow),
      () => null,
    );
    this.inFlight.set(key, call);
    void call.then(() => {
      if (this.inFlight.get(key) === call) this.inFlight.delete(key);
    });
    return call;
  }
}
