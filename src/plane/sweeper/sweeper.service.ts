import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { PlaneConfig } from '../config/config.js';
import type { Job } from '../jobs/jobs.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { SystemClose, SystemEvents } from '../events/index.js';
import { pollNode, type PollResult } from './node-poll.js';
import type { NodeClient } from '../nodes/node-client.js';
import type { CamerasService, CameraStatus, NodeCamera } from '../cameras/cameras.service.js';
import type { UsersService } from '../users/users.service.js';
import { applyRepairs, planRepairs } from '../cameras/provisioning.js';
import { figuresOf, type NodePoll, type SweepReport, type SweepSink } from './sweep-report.js';
import { SweepApplier, type PollOutcome } from './sweep-apply.js';
import { sweeperStore } from './sweeper.store.js';

/** The cameras whose status differs from the one they were read with (a steady sweep writes none). */
function changed(
  cams: NodeCamera[],
  status: (c: NodeCamera) => CameraStatus,
): Array<{ id: string; status: CameraStatus }> {
  return cams.flatMap((c) => {
    const s = status(c);
    return s === c.status ? [] : [{ id: c.id, status: s }];
  });
}

/** Opened API tokens by node id, each with the sealed text it was opened from. */
type OpenedTokens = Map<string, { sealed: string; token: string }>;

export interface SweepSummary {
  polled: number;
  reachable: number;
}

/** How often a sweep also closes intervals left open by a deleted node or camera. */
const ORPHAN_CHECK_MS = 60_000;
/** Poll results stored per transaction. */
const APPLY_BATCH = 250;
/** Sweeps a lease outlives its last renewal: a holder that died is replaced after this many. */
const LEASE_SWEEPS = 3;

/**
 * The sweeper (document 4 §6, §9). One plane process sweeps at a time: the holder of the lease
 * row (sweeper_lease), renewed every sweep; when it dies its lease runs out and another takes it.
 * Every sweep it claims the enabled nodes, loads their cameras in one query, polls the nodes (a
 * bounded number at once, each under the time-out), repairs each reachable node's streams to
 * the inventory (the reconcile), stores the results in batches and hands the sweep report to
 * the sink (the fleet monitor).
 */
export class Sweeper {
  private readonly holder = randomUUID();
  private readonly applier: SweepApplier;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: PlaneConfig['sweeper'],
    private readonly nodes: NodesService,
    private readonly cameras: CamerasService,
    users: UsersService,
    private readonly system: SystemEvents,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly sink: SweepSink,
    private readonly client: NodeClient,
  ) {
    this.applier = new SweepApplier(db, nodes, cameras, users, system);
  }

  private lastOrphanCheck = -Infinity;
  /** The tokens opened in the last sweep, by node id (see tokenOf). */
  private tokens: OpenedTokens = new Map();

  job(): Job {
    // A sweep every interval, whatever a sweep takes (document 4 §6: "each sweep, default 5 s").
    return {
      name: 'nodes.sweep',
      everyMs: this.config.intervalMs,
      budgetMs: this.config.intervalMs,
      fixedRate: true,
      run: async () => {
        await this.sweep();
      },
    };
  }

  /** Gives up the lease (a process that stops), so that another process sweeps at once. */
  release(): Promise<void> {
    return sweeperStore.releaseLease(this.db, this.holder);
  }

  async sweep(): Promise<SweepSummary> {
    const sampled = this.clock.now();
    if (!(await sweeperStore.takeLease(this.db, this.holder, new Date(sampled), LEASE_SWEEPS * this.config.intervalMs)))
      return { polled: 0, reachable: 0 };
    await this.stopWatchingDisabled();
    if (this.clock.now() - this.lastOrphanCheck >= ORPHAN_CHECK_MS) {
      this.lastOrphanCheck = this.clock.now();
      await this.system.closeOrphans(this.db, this.clock.now());
    }
    // Half a sweep: a claim keeps a node from being polled twice in one sweep.
    const claimed = await this.nodes.claimDue(new Date(sampled), this.config.intervalMs / 2);
    const camsOf = new Map<string, NodeCamera[]>(claimed.map((n) => [n.id, []]));
    for (const c of await this.cameras.ofNodes(
      this.db,
      claimed.map((n) => n.id),
    ))
      camsOf.get(c.node_id)?.push(c);
    const tokens: OpenedTokens = new Map();
    const polls: NodePoll[] = [];
    const outcomes: PollOutcome[] = [];
    let reachable = 0;
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const n = claimed[next++]!;
        const at = this.clock.now();
        const cams = camsOf.get(n.id) ?? [];
        const token = this.tokenOf(n, tokens);
        const result: PollResult =
          token === null
            ? { reachable: false, reason: 'bad_token', errors: ['bad_token'] }
            : await pollNode(this.client, { url: n.url, apiToken: token }, this.config.timeoutMs);
        const errors = [...(result.errors ?? [])];
        if (result.reachable) {
          reachable++;
          if (result.streams && token !== null) {
            const plan = planRepairs(cams, result.streams, result.system.storages?.[0]?.name ?? null);
            if (plan.put.length || plan.del.length) {
              const failed = await applyRepairs(
                this.client.at({ url: n.url, apiToken: token }),
                plan,
                this.config.timeoutMs,
              );
              if (failed) errors.push('repair_failed');
            }
          }
        }
        outcomes.push({ nodeId: n.id, at, result, claim: n.polled_at, cams });
        // A full batch is stored at once: a long sweep's first results do not wait for its last polls.
        if (outcomes.length >= APPLY_BATCH) await this.store(outcomes.splice(0, outcomes.length));
        polls.push({
          node_id: n.id,
          attempted_ms: at,
          last_seen_ms: result.reachable ? at : (n.last_seen_at?.getTime() ?? null),
          reachable: result.reachable,
          system_telemetry: result.reachable ? (result.system.telemetry ?? null) : null,
          storage_telemetry: result.reachable ? (result.system.storages ?? null) : null,
          errors,
          license: result.reachable ? (result.system.license ?? null) : null,
          streams: result.reachable && result.streams ? result.streams.map(figuresOf) : null,
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.concurrency, claimed.length) }, worker));
    // Only this sweep's nodes are kept: a deleted or disabled node's token leaves memory.
    this.tokens = tokens;
    await this.store(outcomes);
    await this.publish({ sampled_ms: sampled, nodes_total: await this.nodes.count(), polls });
    return { polled: claimed.length, reachable };
  }

  /**
   * The node's API token, or null when its sealed token does not open (the node is then
   * unreachable). Opened once per sealed text, not every poll (AES-GCM was 5% of the sweeping
   * process at 1,000 nodes, issue 26): a token changed through the API is a new sealed text,
   * opened at the next poll. Recorded in `next`, the tokens of the sweep under way.
   */
  private tokenOf(n: { id: string; api_token_enc: string }, next: OpenedTokens): string | null {
    const had = this.tokens.get(n.id);
    if (had?.sealed === n.api_token_enc) {
      next.set(n.id, had);
      return had.token;
    }
    try {
      const token = this.nodes.openApiToken(n.id, n.api_token_enc);
      next.set(n.id, { sealed: n.api_token_enc, token });
      return token;
    } catch {
      return null;
    }
  }

  private async store(batch: PollOutcome[]): Promise<void> {
    try {
      await this.applier.apply(batch);
    } catch (err) {
      this.log.warn({ nodes: batch.length, err: (err as Error).message }, 'sweep results not stored');
    }
  }

  private async publish(report: SweepReport): Promise<void> {
    try {
      await this.sink.publish(report);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'sweep report not published');
    }
  }

  /**
   * Stores what one poll of node `nodeId`, started at `at`, found; writes the events it decides.
   * `claim`: the claim the poll was made under; when another process has claimed the node since,
   * its newer result wins and this one is dropped.
   */
  async apply(nodeId: string, at: number, result: PollResult, claim: Date | null = null): Promise<void> {
    await this.applier.apply([{ nodeId, at, result, claim, cams: await this.cameras.ofNode(this.db, nodeId) }]);
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
        if (n.was)
          closes.push({ detector: 'system.node_unreachable', occurredAt: new Date(n.was).getTime(), nodeId: n.id });
        const cams = await this.cameras.ofNode(trx, n.id);
        await this.cameras.setStatuses(
          trx,
          changed(cams, () => 'unavailable'),
        );
        for (const c of await this.cameras.closeOffline(
          trx,
          cams.map((x) => x.id),
        )) {
          closes.push({ detector: 'system.camera_offline', occurredAt: new Date(c.was).getTime(), cameraId: c.id });
        }
      }
      return this.system.write(trx, [], closes, at);
    });
    this.system.publish(notice);
  }
}
