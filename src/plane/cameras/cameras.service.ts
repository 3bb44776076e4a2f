import { randomUUID } from 'node:crypto';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { maskUrlPassword } from '../../common/redact.js';
import { ffmpegHost, sourceAmbiguity } from '../../common/source-url.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { isUuid, pageOf, requireUuid, DEFAULT_LIMIT, type ListArgs } from '../http/list.js';
import { writeScope } from '../rights/org-scope.js';
import { cameraScope, type CameraScope } from '../rights/camera-rights.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { TagsService } from '../tags/tags.service.js';
import type { CameraCreate, CameraPatch } from './cameras.schemas.js';
import {
  camerasStore,
  type CameraCounts,
  type CameraRecord,
  type CameraStatus,
  type NodeCamera,
  type SessionsPageNode,
} from './cameras.store.js';
import { rightsChanged } from '../live/bus.js';
import { isForbiddenTarget } from '../nodes/target-policy.js';
import type { Provisioner } from './provisioning.js';

// No file: (issue 10, finding 8): an organisation administrator would have the node read any
// file of its host. Document 4's file:// input stays for a node's own configuration.
const SCHEMES = new Set(['rtsp:', 'rtsps:', 'rtmp:', 'rtmps:', 'http:', 'https:', 'testsrc:']);
const NETWORK = new Set(['rtsp:', 'rtsps:', 'rtmp:', 'rtmps:', 'http:', 'https:']);

/** A source URL of an accepted scheme; network schemes need a host. */
export function checkSourceUrl(text: string, allowPrivateTargets = false): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw errors.badRequest('bad_source_url');
  }
  if (!SCHEMES.has(u.protocol) || (NETWORK.has(u.protocol) && !u.hostname)) throw errors.badRequest('bad_source_url');
  if (!NETWORK.has(u.protocol)) return text;
  // ffmpeg must connect to the host checked here: a text its parser reads otherwise is refused
  // (issue 25, item 3: `http://10.0.0.1\@169.254.169.254/`), and ffmpeg's host is checked too.
  if (sourceAmbiguity(text) !== null) throw errors.badRequest('bad_source_url');
  // The node would fetch it: not its link-local or cloud-metadata neighbours.
  const ffmpeg = ffmpegHost(text);
  if (!allowPrivateTargets && (isForbiddenTarget(u.hostname) || (ffmpeg !== null && isForbiddenTarget(ffmpeg))))
    throw errors.badRequest('bad_source_url');
  return text;
}

// Camera URLs often carry the camera's password: replies and audit params show it as ***
// (maskUrlPassword). A masked URL sent back unchanged (read, edit another field, write) keeps the stored one.
// The record types other domains use, so that they import this service and never the store.
export type { CameraCounts, CameraStatus, NodeCamera, SessionsPageNode };

export const streamName = (id: string, kind: 'MAIN' | 'SUB') => `${id}_${kind.toLowerCase()}`;

function cameraRow(c: CameraRecord, tagIds: string[]) {
  const profiles: Array<{ kind: 'MAIN' | 'SUB'; stream: string; source_url: string }> = [
    { kind: 'MAIN', stream: streamName(c.id, 'MAIN'), source_url: maskUrlPassword(c.main_source) },
  ];
  if (c.sub_source !== null)
    profiles.push({ kind: 'SUB' as const, stream: streamName(c.id, 'SUB'), source_url: maskUrlPassword(c.sub_source) });
  return {
    id: c.id,
    org_id: c.org_id,
    node_id: c.node_id,
    name: c.name,
    main_source: maskUrlPassword(c.main_source),
    sub_source: c.sub_source === null ? null : maskUrlPassword(c.sub_source),
    tag_ids: tagIds,
    status: c.status,
    profiles,
    recording: c.recording_retention === null ? null : { retention: c.recording_retention },
  };
}

/**
 * Cameras as records: reads for anyone within the camera-rights rule, writes for administrators.
 * Each write is sent to the camera's node once committed (Provisioner, best effort); the
 * sweeper's reconcile repairs what did not arrive and sets `status` from the node's main stream.
 */
export class CamerasService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly orgs: OrgsService,
    private readonly nodes: NodesService,
    private readonly tags: TagsService,
    private readonly provisioner: Pick<Provisioner, 'cameraChanged' | 'settled'>,
  ) {}

  /** Resolves once every camera write made so far reached its node or failed. */
  provisioned(): Promise<void> {
    return this.provisioner.settled();
  }

  /** Whether the organisation has cameras (they keep it: 409 org_not_empty). */
  async anyInOrg(db: Db, orgId: string): Promise<boolean> {
    return (await camerasStore.countInOrg(db, orgId)) > 0;
  }

  // The sweeper's observations of the cameras (status, offline interval), stored here: the cameras table is this domain's.

  /** The cameras of a node, with their status and open offline interval. */
  ofNode(db: Db, nodeId: string): Promise<NodeCamera[]> {
    return camerasStore.ofNode(db, nodeId);
  }

  /** The inventory by status for the fleet summary: one aggregate query, asked once per sweep. */
  statusCounts(): Promise<CameraCounts> {
    return camerasStore.statusCounts(this.db);
  }

  /** The cameras of several nodes, in one query (a sweep loads all its nodes' cameras at once). */
  ofNodes(db: Db, nodeIds: string[]): Promise<NodeCamera[]> {
    return camerasStore.ofNodes(db, nodeIds);
  }

  /** Starts the offline interval of each camera not already offline, each at its own time; returns the ones it started. */
  openOfflineAt(trx: Db, rows: Array<{ id: string; at: Date }>): Promise<string[]> {
    return camerasStore.openOfflineAt(trx, rows);
  }

  /** Sets each camera's status; writes only the rows that change. */
  setStatuses(trx: Db, rows: Array<{ id: string; status: CameraStatus }>): Promise<void> {
    return camerasStore.setStatuses(trx, rows);
  }

  /** Starts the offline interval of those cameras not already offline; returns the ones it started. */
  openOffline(trx: Db, ids: string[], at: Date): Promise<string[]> {
    return camerasStore.openOffline(trx, ids, at);
  }

  /** Ends the offline interval of those cameras that are offline; returns each with its start. */
  closeOffline(trx: Db, ids: string[]): Promise<Array<{ id: string; was: Date }>> {
    return camerasStore.closeOffline(trx, ids);
  }

  /** The tags of these cameras (notification rules match by them, inside an event write's transaction). */
  tagsOf(db: Db, ids: string[]): Promise<Map<string, string[]>> {
    return camerasStore.tagsOf(db, ids);
  }

  /** Distinct ids, each a camera of `orgId`; otherwise 400 unknown_camera (for grants). */
  async requireInOrg(db: Db, orgId: string, ids: string[]): Promise<string[]> {
    if (ids.some((i) => !isUuid(i))) throw errors.badRequest('unknown_camera');
    const set = [...new Set(ids.map((i) => i.toLowerCase()))];
    if ((await camerasStore.countInOrg(db, orgId, set)) !== set.length) throw errors.badRequest('unknown_camera');
    return set;
  }

  async list(p: Principal, q: ListArgs) {
    const scope = cameraScope(p, q.org);
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = await camerasStore.list(this.db, { scope, after: q.after ?? null, limit });
    const tags = await camerasStore.tagsOf(
      this.db,
      rows.slice(0, limit).map((r) => r.id),
    );
    return pageOf(rows, limit, (r) => cameraRow(r, tags.get(r.id) ?? []));
  }

  async get(p: Principal, rawId: string) {
    const c = await this.find(this.db, cameraScope(p), rawId);
    return cameraRow(c, (await camerasStore.tagsOf(this.db, [c.id])).get(c.id)!);
  }

  async create(p: Principal, body: CameraCreate) {
    const orgId = writeScope(p, body.org_id);
    const main = checkSourceUrl(body.main_source, this.nodes.allowPrivateTargets);
    const sub = body.sub_source == null ? null : checkSourceUrl(body.sub_source, this.nodes.allowPrivateTargets);
    const id = randomUUID();
    const row = await this.db.transaction().execute(async (trx) => {
      const limits = await this.orgs.lockLimits(trx, orgId);
      if (!limits) throw errors.badRequest('unknown_org');
      if (!(await this.nodes.exists(trx, body.node_id.toLowerCase()))) throw errors.badRequest('unknown_node');
      const tagIds = await this.tags.requireInOrg(trx, orgId, body.tag_ids ?? []);
      if (limits.max_cameras !== null && (await camerasStore.countInOrg(trx, orgId)) >= limits.max_cameras) {
        throw errors.quotaReached('max_cameras_reached');
      }
      const rec: CameraRecord = {
        id,
        org_id: orgId,
        node_id: body.node_id.toLowerCase(),
        name: body.name,
        main_source: main,
        sub_source: sub,
        recording_retention: body.recording?.retention ?? null,
        status: 'unavailable',
      };
      const { status: _s, ...insert } = rec;
      await camerasStore.insert(trx, insert);
      await camerasStore.setTags(trx, id, tagIds);
      // Open event streams of the organisation re-read their rights at once (a tag may grant the new camera).
      await rightsChanged(trx, orgId);
      const row = cameraRow(rec, [...tagIds].sort());
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId,
        nodeId: rec.node_id,
        action: 'camera.create',
        objectType: 'camera',
        objectId: id,
        objectName: rec.name,
        params: {
          name: rec.name,
          node_id: rec.node_id,
          main_source: row.main_source,
          sub_source: row.sub_source,
          tag_ids: row.tag_ids,
          recording: row.recording,
        },
      });
      return { row, rec };
    });
    this.provisioner.cameraChanged(null, row.rec);
    return row.row;
  }

  async update(p: Principal, rawId: string, body: CameraPatch) {
    const r = await this.db.transaction().execute(async (trx) => {
      const before = await this.find(trx, adminScope(p), rawId, true);
      const beforeTags = (await camerasStore.tagsOf(trx, [before.id])).get(before.id)!;
      const set: Parameters<typeof camerasStore.update>[2] = {};
      if (body.name !== undefined && body.name !== before.name) set.name = body.name;
      if (body.node_id !== undefined && body.node_id.toLowerCase() !== before.node_id) {
        if (!(await this.nodes.exists(trx, body.node_id.toLowerCase()))) throw errors.badRequest('unknown_node');
        set.node_id = body.node_id.toLowerCase();
      }
      const main = sourceChange(body.main_source, before.main_source, this.nodes.allowPrivateTargets);
      if (main !== undefined) set.main_source = main;
      const sub =
        body.sub_source === null
          ? before.sub_source === null
            ? undefined
            : null
          : sourceChange(body.sub_source, before.sub_source, this.nodes.allowPrivateTargets);
      if (sub !== undefined) set.sub_source = sub;
      if (body.recording !== undefined && (body.recording?.retention ?? null) !== before.recording_retention)
        set.recording_retention = body.recording?.retention ?? null;
      let tagIds = beforeTags;
      if (body.tag_ids !== undefined) {
        const next = (await this.tags.requireInOrg(trx, before.org_id, body.tag_ids)).sort();
        if (next.join() !== beforeTags.join()) tagIds = next;
      }
      const changed = [
        ...Object.keys(set).map((k) => (k === 'recording_retention' ? 'recording' : k)),
        ...(tagIds !== beforeTags ? ['tag_ids'] : []),
      ];
      // The node's streams change only with what they carry (not the name or tags).
      const toNode = ['node_id', 'main_source', 'sub_source', 'recording_retention'].some((f) => f in set);
      const after = { ...before, ...set };
      const row = cameraRow(after, tagIds);
      if (!changed.length) return { row, before, after: null };
      if (Object.keys(set).length) await camerasStore.update(trx, before.id, set, new Date(this.clock.now()));
      if (tagIds !== beforeTags) await camerasStore.setTags(trx, before.id, tagIds);
      // Rights that came through a tag change with it and reach open streams at once; a rename or a
      // new source changes no one's rights (and would make every stream of the organisation re-read them).
      if (tagIds !== beforeTags) await rightsChanged(trx, before.org_id);
      const params: Record<string, unknown> = { changed };
      for (const f of changed) params[f] = (row as Record<string, unknown>)[f];
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: after.org_id,
        nodeId: after.node_id,
        action: 'camera.update',
        objectType: 'camera',
        objectId: after.id,
        objectName: after.name,
        params,
      });
      return { row, before, after: toNode ? after : null };
    });
    if (r.after) this.provisioner.cameraChanged(r.before, r.after);
    return r.row;
  }

  async delete(p: Principal, rawId: string): Promise<{ id: string; deleted: true }> {
    const before = await this.db.transaction().execute(async (trx) => {
      const before = await this.find(trx, adminScope(p), rawId, true);
      await camerasStore.delete(trx, before.id);
      await rightsChanged(trx, before.org_id);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: before.org_id,
        nodeId: before.node_id,
        action: 'camera.delete',
        objectType: 'camera',
        objectId: before.id,
        objectName: before.name,
        params: {},
      });
      return before;
    });
    this.provisioner.cameraChanged(before, null);
    return { id: before.id, deleted: true as const };
  }

  /** One camera the caller may see, as stored (for viewing); 404 otherwise. */
  async visible(p: Principal, rawId: string): Promise<CameraRecord> {
    return this.find(this.db, cameraScope(p), rawId);
  }

  /** A page of nodes of the fleet session list with the cameras `p` may see on them (camerasStore.sessionsNodePage). */
  sessionsNodePage(
    p: Principal,
    q: { from: string | null; camera: string | null; count: number },
  ): Promise<SessionsPageNode[]> {
    return camerasStore.sessionsNodePage(this.db, cameraScope(p), q);
  }

  /** Those of `ids` that `p` may see now (they exist and are visible), with their name and node; one query. */
  async visibleCameras(p: Principal, ids: string[]): Promise<Map<string, { name: string; node_id: string }>> {
    const wanted = [...new Set(ids.filter(isUuid).map((i) => i.toLowerCase()))];
    const rows = await camerasStore.someIn(this.db, cameraScope(p), wanted);
    return new Map(rows.map((c) => [c.id, { name: c.name, node_id: c.node_id }]));
  }

  private async find(db: Db, scope: CameraScope, rawId: string, lock = false): Promise<CameraRecord> {
    const c = await camerasStore.get(db, requireUuid(rawId), scope, { lock });
    if (!c) throw errors.notFound();
    return c;
  }
}

/** Writes are administrator routes: the administrator's organisation, or anything for a superadmin. */
function adminScope(p: Principal): CameraScope {
  return p.role === 'superadmin' ? { kind: 'all' } : { kind: 'org', orgId: p.orgId };
}

/** The new source, or undefined when unchanged (equal, or the masked form of the stored one). */
function sourceChange(
  next: string | undefined,
  stored: string | null,
  allowPrivateTargets: boolean,
): string | undefined {
  if (next === undefined || next === stored || (stored !== null && next === maskUrlPassword(stored))) return undefined;
  return checkSourceUrl(next, allowPrivateTargets);
}
