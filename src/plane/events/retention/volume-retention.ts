import { v7 as uuidv7 } from 'uuid';
import type { Logger } from 'pino';
import type { Clock } from '../../../common/clock.js';
import type { Db } from '../../db/database.js';
import type { AuditService } from '../../audit/audit.service.js';
import type { EvidenceService } from '../../evidence/evidence.service.js';
import { type Job, queueDrainer } from '../../jobs/jobs.js';
import type { EventLog } from '../log/event-log.js';
import { runSelectionJob } from './removal.js';
import { volumeRetentionStore, type RetentionSpec } from './volume-retention.store.js';

const BATCH = 500;
/** A purge episode started at the high watermark goes on down to the low one across runs this long apart. */
const EPISODE_MS = 10 * 60_000;
const SYSTEM_ACTOR = {
  id: null,
  name: 'system',
  role: 'system',
  orgId: null,
  ip: '',
  userAgent: 'argus-plane volume retention',
};

export interface VolumeRetentionConfig {
  enabled: boolean;
  lowPercent: number;
  highPercent: number;
}

/**
 * `volume_retention = "oldest_purge_day"` (document 4 §10): when the evidence storage reaches
 * its high watermark, whole oldest days (UTC) of events go with their evidence, one day after
 * another, until used_percent is below the low watermark. Each day is a cleanup job of kind
 * `retention` with an audit record `data.retention_purge`; a job stopped anywhere resumes at
 * the next run. Every severity goes, starred events too: the day is removed whole.
 */
export class VolumeRetention {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly evidence: EvidenceService,
    private readonly events: EventLog,
    private readonly config: VolumeRetentionConfig,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  job(): Job {
    return {
      name: 'evidence.retention',
      everyMs: 30_000,
      budgetMs: 25_000,
      run: async (deadline) => {
        await this.run(deadline);
      },
    };
  }

  /** One run: queued retention jobs first, then new days while the storage is too full. Returns the days queued by this run. */
  async run(deadline: number): Promise<string[]> {
    const days: string[] = [];
    if (!this.config.enabled) return days;
    await this.drain(deadline);
    let episode = await volumeRetentionStore.finishedSince(this.db, new Date(this.clock.now() - EPISODE_MS));
    while (this.clock.now() < deadline) {
      const used = await this.evidence.usedPercent();
      if (used < this.config.lowPercent || (!episode && used < this.config.highPercent)) break;
      episode = true;
      const queued = await this.queueOldestDay(used);
      if (!queued) break;
      days.push(queued);
      await this.drain(deadline);
    }
    return days;
  }

  private async queueOldestDay(used: number): Promise<string | null> {
    return this.db.transaction().execute(async (trx) => {
      // Another process queued one meanwhile: its run (or the next drain) does it.
      if (await volumeRetentionStore.lockAndFindQueued(trx)) return null;
      const day = await volumeRetentionStore.oldestDay(trx);
      if (!day) return null;
      const from = new Date(`${day}T00:00:00Z`);
      const spec: RetentionSpec = {
        day,
        from: from.toISOString(),
        to: new Date(from.getTime() + 86_400_000).toISOString(),
      };
      const preview = await volumeRetentionStore.preview(trx, spec);
      const now = this.clock.now();
      const row = await volumeRetentionStore.insertJob(trx, {
        id: uuidv7({ msecs: now }),
        spec,
        preview,
        created_at: new Date(now),
      });
      await this.audit.record(trx, {
        actor: SYSTEM_ACTOR,
        orgId: null,
        action: 'data.retention_purge',
        objectType: 'cleanup_job',
        objectId: row.id,
        objectName: day,
        params: {
          day,
          used_percent: Math.round(used * 10) / 10,
          low_watermark_percent: this.config.lowPercent,
          high_watermark_percent: this.config.highPercent,
          preview,
        },
      });
      return day;
    });
  }

  private readonly drain = queueDrainer(
    () => this.clock.now(),
    () => volumeRetentionStore.queuedJobIds(this.db),
    (id, deadline) => this.runJob(id, deadline),
  );

  private runJob(id: string, deadline: number): Promise<void> {
    const d = { db: this.db, clock: this.clock, events: this.events, evidence: this.evidence, log: this.log };
    return runSelectionJob(
      d,
      id,
      deadline,
      BATCH,
      (trx, job, limit) => volumeRetentionStore.lockDayBatch(trx, job.spec as unknown as RetentionSpec, limit),
      'retention',
    );
  }
}
