import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { channels, notifyMany } from '../../live/bus.js';
import { Pace } from '../../live/pace.js';
import { NOTIFY_BOUND_BYTES, type EventFrame } from './events.frames.js';

/** This process's own ring: it takes the frames of this process's commits directly. */
export interface LocalRing {
  readonly origin: string;
  take(frames: EventFrame[]): void;
}

// Sends start at most this often: under load the notices of many writes go in one statement
// (bench/plane/intake-single.ts: one notice statement per write statement before, the plane's
// CPU per single-event request 10-15% higher); a quiet process sends at once.
const SEND_EVERY_MS = 5;

/** The start of a payload made only of the notices of the process whose ring is `origin`. */
export const ownPayloadPrefix = (origin: string): string => `[{"origin":${JSON.stringify(origin)},`;

/**
 * Sends the notices of committed batches, after their commits and outside their transactions
 * (a NOTIFY inside would serialise every writer's commit on the notification lock). Notices
 * queued while a send is in flight go together in the next one, as JSON arrays within the
 * notification bound sent by one statement (one transaction), so under load
 * there are fewer NOTIFYs than batches and never one per row; sends start at most every
 * SEND_EVERY_MS. A payload holds either only this process's own notices (which its ring skips
 * unread, ownPayloadPrefix) or none of them.
 * A notice that is lost (process ends first) shows to listeners as a gap in seq.
 *
 * Frames given with the notice go to this process's ring at once (no round trip through the
 * database, and no re-read of rows whose notice could not carry them); the notice then names
 * the process as its origin, and that ring skips it when it comes back.
 */
export class EventNotifier {
  private queue: string[] = [];
  private sending: Promise<void> | null = null;
  private readonly pace = new Pace(SEND_EVERY_MS);
  private readonly own: string | null;

  /** `local`: this process's ring, which takes the frames of this process's commits directly. */
  constructor(
    private readonly db: Db,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly local: LocalRing | null = null,
  ) {
    this.own = local ? ownPayloadPrefix(local.origin).slice(1) : null;
  }

  /**
   * Queues one batch notice (a JSON object); resolves once it has been sent. `frames` are the
   * batch's committed frames (bounded), for this process's ring.
   */
  publish(notice: string, frames?: EventFrame[]): Promise<void> {
    if (frames && this.local) {
      this.local.take(frames);
      notice = `{"origin":${JSON.stringify(this.local.origin)},${notice.slice(1)}`;
    }
    this.queue.push(notice);
    if (!this.sending) this.sending = this.drain();
    return this.sending;
  }

  private async drain(): Promise<void> {
    await Promise.resolve();
    while (this.queue.length) {
      await this.pace.turn();
      const batch = this.queue;
      this.queue = [];
      const payloads: string[] = [];
      let cur: string[] = [],
        size = 2,
        curOwn = false;
      for (const n of batch) {
        const len = Buffer.byteLength(n) + 1;
        const own = this.own !== null && n.startsWith(this.own);
        if (cur.length && (size + len > NOTIFY_BOUND_BYTES || own !== curOwn)) {
          payloads.push(`[${cur.join(',')}]`);
          cur = [];
          size = 2;
        }
        cur.push(n);
        size += len;
        curOwn = own;
      }
      if (cur.length) payloads.push(`[${cur.join(',')}]`);
      try {
        await notifyMany(this.db, channels.events, payloads);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'event notice not sent');
      }
    }
    this.sending = null;
  }
}
