import type { Db } from '../../db/database.js';
import type { EvidenceService } from '../../evidence/evidence.service.js';
import { batchNotice, boundFrame, frameOfRow, type EventFrame } from '../log/events.frames.js';
import type { EventNotifier } from '../log/notifier.js';
import { purgeStore, type DeletedEvent } from './purge.store.js';

/** The UTC day of `ms` as YYYYMMDD (the `d<purge-day>:` prefix of stream cursors). */
export function purgeDayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10).replace(/-/g, '');
}

/** What a committed removal batch leaves to do after its commit. */
export interface RemovedBatch { frames: EventFrame[]; keys: string[]; attachments: number; day: string }

/**
 * The rest of a removal batch once its events are deleted (purge and archive cleanup alike), in
 * the caller's transaction: their idempotency keys, their attachments' metadata, the purge day,
 * and one tombstone per event at a new stream position.
 */
export async function afterEventsDeleted(trx: Db, evidence: EvidenceService, gone: DeletedEvent[], now: number): Promise<RemovedBatch> {
  await purgeStore.deleteExtIds(trx, gone);
  const atts = await evidence.purgeOfEvents(trx, gone);
  const day = purgeDayOf(now);
  await purgeStore.setPurgeDay(trx, day);
  const seqs = await purgeStore.drawSeqs(trx, gone.length);
  const frames = gone.map((g, i) => tombstone({ ...g, seq: seqs[i]! }));
  await purgeStore.insertTombstones(trx, frames, new Date(now));
  return { frames, keys: atts.map((a) => a.storage_key), attachments: atts.length, day };
}

/** After commit: the evidence bytes go, then the tombstones as one notice carrying the purge day. */
export async function publishRemoved(evidence: EvidenceService, notifier: EventNotifier, b: RemovedBatch): Promise<void> {
  await evidence.deleteBytes(b.keys);
  if (b.frames.length) void notifier.publish(batchNotice(b.frames[0]!.seq, b.frames[b.frames.length - 1]!.seq, b.frames, { purge_day: b.day }));
}

/** The `deleted` frame of a removed event: its keys as they were, at a new stream position. */
function tombstone(row: Parameters<typeof frameOfRow>[0]): EventFrame {
  const { interval: _omit, ...f } = frameOfRow(row, 'created');
  return boundFrame({ ...f, updated: false, deleted: true });
}
