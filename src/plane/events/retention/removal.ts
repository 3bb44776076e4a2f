import type { Db } from '../../db/database.js';
import type { EvidenceService } from '../../evidence/evidence.service.js';
import type { EventLog, LogWrite } from '../log/event-log.js';
import type { Clock } from '../../../common/clock.js';
import { purgeStore, type CleanupJobRow } from './purge.store.js';

/** How many events and attachments a removal batch took, and the evidence bytes to delete after its commit. */
export interface RemovedBatch {
  events: number;
  attachments: number;
  bytes: string[];
}

/**
 * A removal batch (purge and archive cleanup alike), in one transaction: `step` locks its job and
 * names the events to remove (or ends the run with a word); the log removes them (their ext ids,
 * the purge day, one tombstone each) and their attachments' metadata goes with them. After
 * the commit the evidence bytes go, then the tombstones as one notice carrying the purge day.
 */
export async function removalBatch<W extends string>(
  db: Db,
  log: EventLog,
  evidence: EvidenceService,
  step: (
    w: LogWrite,
    remove: (keys: Array<{ id: string; occurred_at: Date }>, now: number) => Promise<RemovedBatch>,
  ) => Promise<W | RemovedBatch>,
): Promise<W | RemovedBatch> {
  const { value, written } = await db.transaction().execute((trx) =>
    log.writeIn(trx, (w) =>
      step(w, async (keys, now) => {
        const gone = await w.remove(keys, now);
        const atts = await evidence.purgeOfEvents(w.trx, gone);
        return { events: gone.length, attachments: atts.length, bytes: atts.map((a) => a.storage_key) };
      }),
    ),
  );
  if (typeof value !== 'string') await evidence.deleteBytes(value.bytes);
  log.publish(written);
  return value;
}

/** What runs a cleanup job whose batches are the events a selection names (purge, volume retention). */
export interface SelectionJobDeps {
  db: Db;
  clock: Clock;
  events: EventLog;
  evidence: EvidenceService;
  log: { warn(o: object, msg: string): void };
}

/**
 * Runs cleanup job `id` until `deadline`: each batch locks the job, takes up to `batch` events
 * that `select` names for it and removes them (removalBatch); no events left finishes the job.
 * A job finished meanwhile or held by another process ends the run; a failure is written to
 * the job (`last_error`) and retried at the next run.
 */
export async function runSelectionJob(
  d: SelectionJobDeps,
  id: string,
  deadline: number,
  batch: number,
  select: (trx: Db, job: CleanupJobRow, limit: number) => Promise<Array<{ id: string; occurred_at: Date }>>,
  what: string,
): Promise<void> {
  try {
    while (d.clock.now() < deadline) {
      const step = await removalBatch(d.db, d.events, d.evidence, async (w, remove) => {
        const job = await purgeStore.lockJob(w.trx, id);
        if (!job) return 'skip' as const; // finished, or another process holds this batch
        const keys = await select(w.trx, job, batch);
        const now = d.clock.now();
        if (!keys.length) {
          await purgeStore.finish(w.trx, id, new Date(now));
          return 'done' as const;
        }
        const removed = await remove(keys, now);
        await purgeStore.progress(w.trx, id, removed.events, removed.attachments);
        return removed;
      });
      if (step === 'skip' || step === 'done') return;
    }
  } catch (err) {
    const message = (err as Error).message;
    d.log.warn({ job: id, err: message }, `${what} batch failed; retried on the next run`);
    await purgeStore.fail(d.db, id, message).catch(() => {});
  }
}
