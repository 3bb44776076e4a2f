import type { Clock } from '../../../common/clock.js';
import type { Job } from '../../jobs/jobs.js';
import type { EventLog } from '../log/event-log.js';

const BATCH = 500;

/**
 * Closes open intervals whose close_by has passed (templates: interval_timeout_secs, and the
 * end of a coalescing window), in batches until none is due or the deadline passes. Each close
 * is published as a full `updated` frame, one notice per batch. Returns how many it closed.
 */
export async function closeDueIntervals(log: EventLog, clock: Clock, deadline: number): Promise<number> {
  let total = 0;
  while (clock.now() < deadline) {
    const n = await log.write((w) => w.closeDue(new Date(clock.now()), BATCH));
    total += n;
    if (n < BATCH) break;
  }
  return total;
}

/** The named job: every 5 s, so an interval closes within seconds of its time-out. */
export function intervalTimeoutsJob(log: EventLog, clock: Clock): Job {
  return {
    name: 'events.interval_timeouts',
    everyMs: 5_000,
    budgetMs: 20_000,
    run: async (deadline) => {
      await closeDueIntervals(log, clock, deadline);
    },
  };
}
