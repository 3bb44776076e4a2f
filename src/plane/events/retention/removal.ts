import type { Db } from '../../db/database.js';
import type { EvidenceService } from '../../evidence/evidence.service.js';
import type { EventLog, LogWrite } from '../log/event-log.js';

/** How many events and attachments a removal batch took, and the evidence bytes to delete after its commit. */
export interface RemovedBatch { events: number; attachments: number; bytes: string[] }

/**
 * A removal batch (purge and archive cleanup alike), in one transaction: `step` locks its job and
 * names the events to remove (or ends the run with a word); the log removes them (their ext ids,
 * the purge day, one tombstone each) and their attachments' metadata goes with them. After
 * the commit the evidence bytes go, then the tombstones as one notice carrying the purge day.
 */
export async function removalBatch<W extends string>(db: Db, log: EventLog, evidence: EvidenceService,
  step: (w: LogWrite, remove: (keys: Array<{ id: string; occurred_at: Date }>, now: number) => Promise<RemovedBatch>) => Promise<W | RemovedBatch>): Promise<W | RemovedBatch> {
  const { value, written } = await db.transaction().execute((trx) => log.writeIn(trx, (w) => step(w, async (keys, now) => {
    const gone = await w.remove(keys, now);
    const atts = await evidence.purgeOfEvents(w.trx, gone);
    return { events: gone.length, attachments: atts.length, bytes: atts.map((a) => a.storage_key) };
  })));
  if (typeof value !== 'string') await evidence.deleteBytes(value.bytes);
  log.publish(written);
  return value;
}
