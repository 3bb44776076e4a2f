import type { Db } from '../db/database.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { SystemEvents, SystemOpen, TimedClose } from '../events/index.js';
import type { NodeStream } from '../nodes/node-replies.js';
import type { PollResult } from './node-poll.js';
import type { CamerasService, CameraStatus, NodeCamera } from '../cameras/cameras.service.js';
import type { UsersService } from '../users/users.service.js';

/** Severities (0 debug .. 4 critical) of the plane's own events. */
export const NODE_UNREACHABLE_SEVERITY = 3;
export const CAMERA_OFFLINE_SEVERITY = 2;

/** A camera's status from the node's state of its main stream (`<camera id>_main`). */
export function cameraStatusOf(stream: NodeStream | undefined): CameraStatus {
  switch (stream?.state) {
    case 'live':
      return 'live';
    // an on-demand stream without viewers serves as soon as one asks
    case 'parked':
      return 'live';
    case 'degraded':
      return 'degraded';
    case 'failing':
      return 'failing';
    default:
      return 'unavailable';
  }
}

/** Why a camera is offline on a reachable node, or null when it is not (failing or absent main stream). */
export function offlineReasonOf(stream: NodeStream | undefined): 'stream_absent' | 'stream_failing' | null {
  if (!stream) return 'stream_absent';
  return stream.state === 'failing' ? 'stream_failing' : null;
}

/** One node's poll to store: what it answered, when, under which claim, and its cameras as read before. */
export interface PollOutcome {
  nodeId: string;
  at: number;
  result: PollResult;
  claim: Date | null;
  cams: NodeCamera[];
}

/**
 * Stores a batch of polls in one transaction with a few statements whatever the batch's size
 * (issue 11: ~0.5 ms of CPU per poll): the nodes' reachability in one UPDATE per direction,
 * the cameras' changed statuses in one, offline intervals opened and closed in one each. Only
 * rows that change are written, besides the reachable nodes' last_seen_at. The conditional
 * UPDATEs still decide which process writes an event; the batch's events are one write, each
 * at its node's poll time.
 */
export class SweepApplier {
  constructor(
    private readonly db: Db,
    private readonly nodes: NodesService,
    private readonly cameras: CamerasService,
    private readonly users: UsersService,
    private readonly system: SystemEvents,
  ) {}

  async apply(batch: PollOutcome[]): Promise<void> {
    if (!batch.length) return;
    const written = await this.db.transaction().execute(async (trx) => {
      const byId = new Map(batch.map((o) => [o.nodeId, o]));
      const down = batch.filter((o) => !o.result.reachable);
      const up = batch.filter((o) => o.result.reachable);
      const opens: SystemOpen[] = [];
      const closes: TimedClose[] = [];
      const statuses: Array<{ id: string; status: CameraStatus }> = [];
      const status = (c: NodeCamera, s: CameraStatus) => {
        if (s !== c.status) statuses.push({ id: c.id, status: s });
      };

      for (const n of await this.nodes.markUnreachableMany(
        trx,
        down.map((o) => ({ id: o.nodeId, at: new Date(o.at), claim: o.claim })),
      )) {
        const o = byId.get(n.id)!;
        for (const c of o.cams) status(c, 'unavailable');
        // Only the node's event: its cameras' offline intervals neither open nor close while nothing is known of them.
        if (!n.opened) continue;
        const reason = o.result.reachable ? '' : o.result.reason;
        for (const orgId of await this.orgsFor(trx, o.cams)) {
          opens.push({
            detector: 'system.node_unreachable',
            orgId,
            occurredAt: o.at,
            interval: true,
            severity: NODE_UNREACHABLE_SEVERITY,
            nodeId: n.id,
            nodeName: n.name,
            cameraId: null,
            cameraName: null,
            payload: { node_name: n.name, reason },
          });
        }
      }

      const offline: Array<{ c: NodeCamera; o: PollOutcome; name: string; reason: string }> = [];
      const back: string[] = [];
      const marks = up.map((o) => ({
        id: o.nodeId,
        at: new Date(o.at),
        claim: o.claim,
        version: o.result.reachable ? o.result.system.version : '',
      }));
      for (const n of await this.nodes.markReachableMany(trx, marks)) {
        const o = byId.get(n.id)!;
        if (n.was)
          closes.push({
            detector: 'system.node_unreachable',
            occurredAt: n.was.getTime(),
            nodeId: n.id,
            endedAt: o.at,
          });
        const streams = o.result.reachable ? o.result.streams : null;
        if (!streams) continue;
        const byName = new Map(streams.map((s) => [s.name, s]));
        for (const c of o.cams) {
          const main = byName.get(`${c.id}_main`);
          status(c, cameraStatusOf(main));
          const reason = offlineReasonOf(main);
          if (reason !== null) offline.push({ c, o, name: n.name, reason });
          else if (c.offline_since !== null) back.push(c.id);
        }
      }
      await this.cameras.setStatuses(trx, statuses);
      const started = new Set(
        await this.cameras.openOfflineAt(
          trx,
          offline.map((x) => ({ id: x.c.id, at: new Date(x.o.at) })),
        ),
      );
      for (const { c, o, name, reason } of offline) {
        if (!started.has(c.id)) continue;
        opens.push({
          detector: 'system.camera_offline',
          orgId: c.org_id,
          occurredAt: o.at,
          interval: true,
          severity: CAMERA_OFFLINE_SEVERITY,
          nodeId: o.nodeId,
          nodeName: name,
          cameraId: c.id,
          cameraName: c.name,
          payload: { camera_name: c.name, node_name: name, reason },
        });
      }
      const pollAt = new Map(batch.flatMap((o) => o.cams.map((c) => [c.id, o.at] as const)));
      for (const c of await this.cameras.closeOffline(trx, back)) {
        closes.push({
          detector: 'system.camera_offline',
          occurredAt: new Date(c.was).getTime(),
          cameraId: c.id,
          endedAt: pollAt.get(c.id)!,
        });
      }
      // One write for the whole batch, each event at its node's poll time; a steady sweep has none.
      return this.system.writeMany(trx, opens, closes);
    });
    this.system.publish(written);
  }

  /** Every organisation with cameras on the node; with none, the first superadmin's. */
  private async orgsFor(trx: Db, cams: NodeCamera[]): Promise<string[]> {
    const orgs = [...new Set(cams.map((c) => c.org_id))].sort();
    if (orgs.length) return orgs;
    const home = await this.users.superadminOrg(trx);
    return home ? [home] : [];
  }
}
