import type { Clock } from '../../../common/clock.js';
import type { Db } from '../../db/database.js';
import type { Job } from '../../jobs/jobs.js';
import { coalesceStore } from '../log/coalesce.store.js';
import { eventsReadStore } from '../feed/events.read.store.js';
import { eventsStore } from '../log/events.store.js';
import { batchNotice, frameOfRow } from '../log/events.frames.js';
import type { EventNotifier } from '../log/notifier.js';

const BATCH = 500;

/**
 * Closes open intervals whose close_by has passed (templates: interval_timeout_secs, and the
 * end of a coalescing window), in batches until none is due or the deadline passes. Each close
 * is published as a full `updated` frame, one notice per batch. Returns how many it closed.
 */
export async function closeDueIntervals(db: Db, clock: Clock, notifier: EventNotifier, deadline: number): Promise<number> {
  let total = 0;
  while (clock.now() < deadline) {
    const notice = await db.transaction().execute(async (trx) => {
      await eventsStore.beginWrite(trx);
      const closed = await coalesceStore.closeDue(trx, new Date(clock.now()), BATCH);
      if (!closed.length) return null;
      total += closed.length;
      const frames = [];
      for (const c of closed) {
        const row = await eventsReadStore.get(trx, { kind: 'all' }, c.id, new Date(c.occurred_at));
        if (row) frames.push(frameOfRow(row, 'full'));
      }
      frames.sort((a, b) => a.seq - b.seq);
      return { notice: batchNotice(frames[0]?.seq ?? 0, frames[frames.length - 1]?.seq ?? 0, frames), more: closed.length === BATCH };
    });
    if (!notice) break;
    void notifier.publish(notice.notice);
    if (!notice.more) break;
  }
  return total;
}

/** The named job: every 5 s, so an interval closes within seconds of its time-out. */
export function intervalTimeoutsJob(db: Db, clock: Clock, notifier: EventNotifier): Job {
  return { name: 'events.interval_timeouts', everyMs: 5_000, budgetMs: 20_000, run: async (deadline) => { await closeDueIntervals(db, clock, notifier, deadline); } };
}
