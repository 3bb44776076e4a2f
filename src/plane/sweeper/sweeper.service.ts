import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { PlaneConfig } from '../config/config.js';
import type { Job } from '../jobs/jobs.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { SystemClose, SystemEvents, SystemOpen } from '../events/index.js';
import { pollNode, type NodeStream, type PollResult } from './node-client.js';
import type { CamerasService, CameraStatus, NodeCamera } from '../cameras/cameras.service.js';
import type { UsersService } from '../users/users.service.js';

/** Severities (0 debug .. 4 critical) of the plane's own events. */
export const NODE_UNREACHABLE_SEVERITY = 3;
export const CAMERA_OFFLINE_SEVERITY = 2;

/** A camera's status from the node's state of its main stream (`<camera id>_main`). */
export function cameraStatusOf(stream: NodeStream | undefined): CameraStatus {
  switch (stream?.state) {
    case 'live': return 'live';
    // an on-demand stream without viewers serves as soon as one asks
    case 'parked': return 'live';
    case 'degraded': return 'degraded';
    case 'failing': return 'failing';
    default: return 'unavailable';
  }
}

/** Why a camera is offline on a reachable node, or null when it is not (failing or absent main stream). */
export function offlineReasonOf(stream: NodeStream | undefined): 'stream_absent' | 'stream_failing' | null {
  if (!stream) return 'stream_absent';
  return stream.state === 'failing' ? 'stream_failing' : null;
}

/** The cameras whose status differs from the one they were read with (a steady sweep writes none). */
function changed(cams: NodeCamera[], status: (c: NodeCamera) => CameraStatus): Array<{ id: string; status: CameraStatus }> {
  return cams.flatMap((c) => {
    const s = status(c);
    return s === c.status ? [] : [{ id: c.id, status: s }];
  });
}

export interface SweepSummary { polled: number; reachable: number }

/** How often a sweep also closes intervals left open by a deleted node or camera. */
const ORPHAN_CHECK_MS = 60_000;

/**
 * The sweeper (document 4 §6): every sweep it claims the enabled nodes due for a poll, polls
 * them (a bounded number at once, each under the time-out), and applies what each answered:
 * the node's reachability and system.node_unreachable, each camera's status from its main
 * stream and system.camera_offline. Each node's result is one transaction; the conditional
 * UPDATE that moves a state decides which process writes the event.
 */
export class Sweeper {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: PlaneConfig['sweeper'],
    private readonly nodes: NodesService,
    private readonly cameras: CamerasService,
    private readonly users: UsersService,
    private readonly system: SystemEvents,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  private lastOrphanCheck = -Infinity;

  job(): Job {
    // A sweep every interval, whatever a sweep takes (document 4 §6: "each sweep, default 5 s").
    return { name: 'nodes.sweep', everyMs: this.config.intervalMs, budgetMs: this.config.intervalMs, fixedRate: true, run: async () => { await this.sweep(); } };
  }

  async sweep(): Promise<SweepSummary> {
    await this.stopWatchingDisabled();
    if (this.clock.now() - this.lastOrphanCheck >= ORPHAN_CHECK_MS) {
      this.lastOrphanCheck = this.clock.now();
      await this.system.closeOrphans(this.db, this.clock.now());
    }
    // Half a sweep: a process that claimed a node in this sweep keeps it, the next sweep is free.
    const claimed = await this.nodes.claimDue(new Date(this.clock.now()), this.config.intervalMs / 2);
    let reachable = 0;
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const n = claimed[next++]!;
        const at = this.clock.now();
        let result: PollResult;
        try {
          result = await pollNode(n.url, this.nodes.openApiToken(n.id, n.api_token_enc), this.config.timeoutMs);
        } catch {
          result = { reachable: false, reason: 'bad_token' };
        }
        if (result.reachable) reachable++;
        try { await this.apply(n.id, at, result, n.polled_at); } catch (err) { this.log.warn({ node_id: n.id, err: (err as Error).message }, 'sweep result not stored'); }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.concurrency, claimed.length) }, worker));
    return { polled: claimed.length, reachable };
  }

  /**
   * Stores what one poll of node `nodeId`, started at `at`, found; writes the events it decides.
   * `claim`: the claim the poll was made under; when another process has claimed the node since,
   * its newer result wins and this one is dropped.
   */
  async apply(nodeId: string, at: number, result: PollResult, claim: Date | null = null): Promise<void> {
    const notice = await this.db.transaction().execute(async (trx) => {
      const opens: SystemOpen[] = [];
      const closes: SystemClose[] = [];
      const cams = await this.cameras.ofNode(trx, nodeId);
      if (!result.reachable) {
        const node = await this.nodes.markUnreachable(trx, nodeId, new Date(at), claim);
        if (!node) return null;
        await this.cameras.setStatuses(trx, changed(cams, () => 'unavailable'));
        // Only the node's event: its cameras' offline intervals neither open nor close while nothing is known of them.
        if (node.opened) {
          for (const orgId of await this.orgsFor(trx, cams)) {
            opens.push({
              detector: 'system.node_unreachable', orgId, occurredAt: at, interval: true, severity: NODE_UNREACHABLE_SEVERITY,
              nodeId, nodeName: node.name, cameraId: null, cameraName: null, payload: { node_name: node.name, reason: result.reason },
            });
          }
        }
        return this.system.write(trx, opens, closes, at);
      }
      const node = await this.nodes.markReachable(trx, nodeId, new Date(at), result.system.version, claim);
      if (!node) return null;
      if (node.was) closes.push({ detector: 'system.node_unreachable', occurredAt: node.was.getTime(), nodeId });
      if (result.streams) await this.applyStreams(trx, node.name, nodeId, at, cams, result.streams, opens, closes);
      return this.system.write(trx, opens, closes, at);
    });
    this.system.publish(notice);
  }

  private async applyStreams(trx: Db, nodeName: string, nodeId: string, at: number, cams: NodeCamera[], streams: NodeStream[],
    opens: SystemOpen[], closes: SystemClose[]): Promise<void> {
    const byName = new Map(streams.map((s) => [s.name, s]));
    const main = (c: NodeCamera) => byName.get(`${c.id}_main`);
    await this.cameras.setStatuses(trx, changed(cams, (c) => cameraStatusOf(main(c))));
    const offline = cams.filter((c) => offlineReasonOf(main(c)) !== null);
    const started = new Set(await this.cameras.openOffline(trx, offline.map((c) => c.id), new Date(at)));
    for (const c of offline) {
      if (!started.has(c.id)) continue;
      opens.push({
        detector: 'system.camera_offline', orgId: c.org_id, occurredAt: at, interval: true, severity: CAMERA_OFFLINE_SEVERITY,
        nodeId, nodeName, cameraId: c.id, cameraName: c.name, payload: { camera_name: c.name, node_name: nodeName, reason: offlineReasonOf(main(c)) },
      });
    }
    const back = cams.filter((c) => c.offline_since !== null && offlineReasonOf(main(c)) === null).map((c) => c.id);
    for (const c of await this.cameras.closeOffline(trx, back)) closes.push({ detector: 'system.camera_offline', occurredAt: new Date(c.was).getTime(), cameraId: c.id });
  }

  /**
   * A disabled node is no longer watched: its open unreachable interval and its cameras' offline
   * intervals end, and its cameras become `unavailable`.
   */
  private async stopWatchingDisabled(): Promise<void> {
    const at = this.clock.now();
    const notice = await this.db.transaction().execute(async (trx) => {
      const closes: SystemClose[] = [];
      for (const n of await this.nodes.markDisabled(trx)) {
        if (n.was) closes.push({ detector: 'system.node_unreachable', occurredAt: new Date(n.was).getTime(), nodeId: n.id });
        const cams = await this.cameras.ofNode(trx, n.id);
        await this.cameras.setStatuses(trx, changed(cams, () => 'unavailable'));
        for (const c of await this.cameras.closeOffline(trx, cams.map((x) => x.id))) {
          closes.push({ detector: 'system.camera_offline', occurredAt: new Date(c.was).getTime(), cameraId: c.id });
        }
      }
      return this.system.write(trx, [], closes, at);
    });
    this.system.publish(notice);
  }

  /** Every organisation with cameras on the node; with none, the first superadmin's. */
  private async orgsFor(trx: Db, cams: NodeCamera[]): Promise<string[]> {
    const orgs = [...new Set(cams.map((c) => c.org_id))].sort();
    if (orgs.length) return orgs;
    const home = await this.users.superadminOrg(trx);
    return home ? [home] : [];
  }
}
