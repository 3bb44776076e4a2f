import { v7 as uuidv7 } from 'uuid';
import type { Logger } from 'pino';
import type { Clock } from '../../../common/clock.js';
import { iso } from '../../../common/time.js';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { Principal } from '../../http/principal.js';
import type { AuditService } from '../../audit/audit.service.js';
import { actorOf } from '../../auth/auth.service.js';
import type { EvidenceService } from '../../evidence/evidence.service.js';
import { type Job, queueDrainer } from '../../jobs/jobs.js';
import type { EventLog } from '../log/event-log.js';
import { purgeStore, type CleanupJobRow, type PurgeSpec } from './purge.store.js';
import { runSelectionJob } from './removal.js';

export { purgeDayOf } from '../log/cursor.js';

/** The purge body (document 2): every field has a default. */
export interface PurgeBody {
  event_ids?: string[];
  org_id?: string | null;
  from?: string | null;
  to?: string | null;
  camera_id?: string | null;
  detector?: string | null;
  severity_min?: number | null;
  starred?: boolean;
  category?: 'camera' | 'system' | null;
  as_of?: string;
}

export const MAX_PURGE_IDS = 1000;
export const MAX_PURGE_DETECTOR = 256;
// Rows deleted per transaction: short transactions keep the writers' lock and the stream moving.
const BATCH = 500;

export function jobJson(j: CleanupJobRow) {
  const finished = j.state === 'finished';
  return {
    id: j.id,
    kind: j.kind,
    org_id: j.org_id,
    state: j.state,
    preview: j.preview,
    progress: finished ? { events: Number(j.deleted_events), attachments: Number(j.deleted_attachments) } : {},
    created_at: iso(j.created_at),
    finished_at: iso(j.finished_at),
    last_error: j.last_error,
  };
}

/**
 * Purge of history (document 2): preview, purge (a queued cleanup job, audited event.delete),
 * and the background run that deletes rows and evidence bytes in batches and publishes a
 * tombstone (`deleted: true`) per event. `as_of` freezes the selection: events after it stay.
 */
export class PurgeService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly evidence: EvidenceService,
    private readonly events: EventLog,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  normalise(b: PurgeBody): PurgeSpec {
    const ids = [...new Set((b.event_ids ?? []).map((i) => i.toLowerCase()))].sort();
    if (ids.length > MAX_PURGE_IDS) throw errors.badRequest('event_purge_selection_too_large');
    const from = b.from ?? null,
      to = b.to ?? null;
    if (from !== null && to !== null && Date.parse(from) >= Date.parse(to)) throw errors.badRequest('bad_time_range');
    const detector = b.detector ?? null;
    if (detector !== null && (detector.length === 0 || [...detector].length > MAX_PURGE_DETECTOR))
      throw errors.badRequest('bad_detector');
    const now = this.clock.now();
    // A future as_of is lowered to now: the selection never reaches events not yet written.
    const asOf = b.as_of === undefined ? now : Math.min(Date.parse(b.as_of), now);
    return {
      event_ids: ids,
      org_id: b.org_id?.toLowerCase() ?? null,
      from: iso(from),
      to: iso(to),
      camera_id: b.camera_id?.toLowerCase() ?? null,
      detector,
      severity_min: b.severity_min ?? null,
      starred: b.starred === true,
      category: b.category ?? null,
      as_of: iso(asOf),
    };
  }

  async preview(
    b: PurgeBody,
  ): Promise<{ spec: PurgeSpec; preview: { events: number; attachments: number; attachment_bytes: number } }> {
    const spec = this.normalise(b);
    return { spec, preview: await purgeStore.preview(this.db, spec) };
  }

  /** Creates the job (nothing is deleted here) and starts the background run. */
  async purge(p: Principal, b: PurgeBody) {
    const spec = this.normalise(b);
    const job = await this.db.transaction().execute(async (trx) => {
      const preview = await purgeStore.preview(trx, spec);
      if (preview.events === 0) throw errors.eventPurgeEmpty();
      const row = await purgeStore.insertJob(trx, {
        id: uuidv7({ msecs: this.clock.now() }),
        org_id: spec.org_id,
        spec,
        preview,
        created_by: p.userId,
        created_at: new Date(this.clock.now()),
      });
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: spec.org_id,
        action: 'event.delete',
        objectType: 'cleanup_job',
        objectId: row.id,
        objectName: 'events',
        params: { spec, preview },
      });
      return row;
    });
    // Started at once rather than at the next tick; a failure here is retried by the job.
    this.runQueued(this.clock.now() + 20_000).catch((err: Error) =>
      this.log.warn({ err: err.message }, 'purge run failed; retried by events.purge'),
    );
    return jobJson(job);
  }

  async job(id: string) {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw errors.notFound();
    const j = await purgeStore.getJob(this.db, id.toLowerCase());
    if (!j) throw errors.notFound();
    return jobJson(j);
  }

  /** Unfinished cleanup jobs of every kind whose last batch failed (settings: stats.failed_jobs). */
  failedJobs(): Promise<number> {
    return purgeStore.failedJobs(this.db);
  }

  /** The named background job: idempotent, batched, stops at its deadline and resumes next run. */
  backgroundJob(): Job {
    return { name: 'events.purge', everyMs: 5_000, budgetMs: 20_000, run: (deadline) => this.runQueued(deadline) };
  }

  /** Runs the queued jobs until `deadline`; one run at a time in this process. */
  readonly runQueued = queueDrainer(
    () => this.clock.now(),
    () => purgeStore.queuedJobIds(this.db),
    (id, deadline) => this.runJob(id, deadline),
  );

  private runJob(id: string, deadline: number): Promise<void> {
    const d = { db: this.db, clock: this.clock, events: this.events, evidence: this.evidence, log: this.log };
    return runSelectionJob(
      d,
      id,
      deadline,
      BATCH,
      (trx, job, limit) => purgeStore.lockBatch(trx, job.spec, limit),
      'purge',
    );
  }
}
