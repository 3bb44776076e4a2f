import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { notify, type LiveBus } from '../live/bus.js';
import { Pace } from '../live/pace.js';
import { channelsStore, type ChannelRow } from './channels.store.js';
import { deliveriesStore, type ClaimedDelivery } from './deliveries.store.js';
import type { Dispatcher } from './dispatcher.js';
import { expandOutbox, PLANS_PER_ROUND, type EventFramesOf } from './outbox.expand.js';

/** Writes that recorded deliveries say so here (after their commit): every process's worker wakes. */
export const DELIVERIES_CHANNEL = 'argus_notification_deliveries';

// A wake NOTIFY starts at most this often: under load one goes for many writes (one per write
// statement before, the plane's CPU per event with three rules 6 µs above without them in
// bench/plane/notifications.ts). The others' workers wake up to this much later.
const WAKE_EVERY_MS = 10;

export interface WorkerOptions {
  /** deliveries per second per channel in this process (`[notifications] channel_rate`) */
  channelRate: number;
  /** attempts of one channel in flight at once: a slow receiver holds only its own channel's */
  concurrency: number;
  /** deliveries claimed by one statement */
  batch: number;
  /**
   * `[notifications] deliver`: false, this process claims and sends nothing (its commits still
   * wake the processes that deliver); a test message is still sent at once by the dispatcher.
   */
  deliver: boolean;
}

/** One channel's claimed deliveries, sent at most `concurrency` at a time and `channelRate` a second. */
interface Lane {
  queue: ClaimedDelivery[];
  inFlight: number;
  tokens: number;
  refilledAt: number;
  timer: NodeJS.Timeout | null;
  channel: ChannelRow;
}

/**
 * The delivery loop of one plane process (document 4 §13). It turns the outbox's plans into
 * delivery rows (outbox.expand.ts), then claims due deliveries with FOR
 * UPDATE SKIP LOCKED (deliveries.store.ts, a lease per claim), a few per channel at a time, and
 * hands each channel's to its own lane: lanes send independently, so a slow receiver holds back
 * only its channel, and each keeps to the channel rate (the rest wait in the table, nothing is
 * dropped). A lane that empties asks for more at once; a write that recorded deliveries wakes
 * every process (LISTEN/NOTIFY), and the named job `notifications.deliver` polls for retries due.
 */
export class DeliveryWorker {
  private readonly lanes = new Map<string, Lane>();
  private pumping: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private notifying = false;
  private notifyAgain = false;
  private readonly wakes = new Pace(WAKE_EVERY_MS);
  /**
   * Whether the outbox may hold plans: set by a commit that recorded some (this process's or,
   * through the wake, another's) and by the poll, cleared before a round takes them. A round
   * started for any other reason (a lane that emptied) claims without taking plans, so an empty
   * outbox costs no transaction of its own.
   */
  private plansMaybe = true;
  /** Names this process's wakes, which its own subscription skips (nudge pumped already). */
  private readonly origin = randomUUID();
  private polled = false;
  /** attempts made by this process (bench, tests) */
  sent = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dispatcher: Dispatcher,
    private readonly opts: WorkerOptions,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly framesOf: EventFramesOf,
  ) {}

  private get laneCap(): number {
    return Math.max(1, Math.min(this.opts.channelRate, this.opts.concurrency * 4));
  }

  /** Claims and hands out until nothing due is left to this process; one pump at a time (a wake meanwhile runs it again). */
  pump(): Promise<void> {
    if (this.stopped || !this.opts.deliver) return Promise.resolve();
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      try {
        do {
          this.again = false;
          if (await this.claimRound()) this.again = true;
        } while (this.again && !this.stopped);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'notification deliveries not claimed; retried');
      } finally {
        this.pumping = null;
      }
    })();
    return this.pumping;
  }

  /** The outbox's plans into delivery rows, then one claim; true when either filled its batch (more may be due). */
  private async claimRound(): Promise<boolean> {
    let expanded = 0;
    if (this.plansMaybe) {
      // Cleared first: a commit meanwhile sets it again (and its pump asks for another round).
      this.plansMaybe = false;
      try {
        expanded = await expandOutbox(this.db, this.clock.now(), this.framesOf);
      } catch (err) {
        this.plansMaybe = true;
        throw err;
      }
      if (expanded >= PLANS_PER_ROUND) this.plansMaybe = true;
    }
    const skip = [...this.lanes].filter(([, l]) => l.queue.length > 0).map(([id]) => id);
    const now = this.clock.now();
    const claimed = await deliveriesStore.claim(this.db, {
      now: new Date(now),
      leaseUntil: new Date(now + this.dispatcher.leaseMs),
      perChannel: this.laneCap,
      limit: this.opts.batch,
      skipChannels: skip,
    });
    if (!claimed.length) return expanded >= PLANS_PER_ROUND;
    const channels = new Map(
      (await channelsStore.byIds(this.db, [...new Set(claimed.map((d) => d.channel_id))])).map((c) => [c.id, c]),
    );
    for (const d of claimed) {
      const channel = channels.get(d.channel_id);
      if (!channel) continue; // deleted meanwhile: its deliveries went with it
      let lane = this.lanes.get(d.channel_id);
      if (!lane) {
        lane = { queue: [], inFlight: 0, tokens: this.opts.channelRate, refilledAt: now, timer: null, channel };
        this.lanes.set(d.channel_id, lane);
      }
      lane.channel = channel;
      lane.queue.push(d);
    }
    for (const lane of this.lanes.values()) this.drain(lane);
    return claimed.length >= this.opts.batch || expanded >= PLANS_PER_ROUND;
  }

  private drain(lane: Lane): void {
    if (this.stopped) return;
    const now = this.clock.now();
    const rate = this.opts.channelRate;
    lane.tokens = Math.min(rate, lane.tokens + ((now - lane.refilledAt) / 1000) * rate);
    lane.refilledAt = now;
    while (lane.queue.length && lane.inFlight < this.opts.concurrency && lane.tokens >= 1) {
      lane.tokens -= 1;
      const d = lane.queue.shift()!;
      lane.inFlight++;
      void this.dispatcher
        .send(d, lane.channel)
        .catch((err: Error) =>
          this.log.warn({ err: err.message }, 'notification outcome not recorded; sent again later'),
        )
        .finally(() => {
          this.sent++;
          lane.inFlight--;
          this.drain(lane);
        });
    }
    if (lane.queue.length && lane.tokens < 1 && !lane.timer) {
      // The rest wait for the channel's next token.
      const wait = Math.ceil(((1 - lane.tokens) / rate) * 1000);
      lane.timer = setTimeout(() => {
        lane.timer = null;
        this.drain(lane);
      }, wait);
      lane.timer.unref();
    }
    if (!lane.queue.length && !lane.inFlight) {
      this.lanes.delete(lane.channel.id);
      void this.pump();
    } else if (!lane.queue.length) void this.pump();
  }

  /**
   * After a commit that recorded deliveries: this process at once, the others through one NOTIFY
   * at a time, at most one every WAKE_EVERY_MS.
   */
  nudge(): void {
    this.plansMaybe = true;
    void this.pump();
    if (this.notifying) {
      this.notifyAgain = true;
      return;
    }
    this.notifying = true;
    void (async () => {
      try {
        do {
          await this.wakes.turn();
          this.notifyAgain = false;
          await notify(this.db, DELIVERIES_CHANNEL, this.origin);
        } while (this.notifyAgain && !this.stopped);
      } catch {
        // The others' poll finds the deliveries anyway.
      } finally {
        this.notifying = false;
      }
    })();
  }

  /**
   * The named job's poll: the first one marks the process ready (migrations done), after which a
   * wake from the bus pumps too. Before it, the LISTEN connection may open on a database not yet
   * migrated, and a pump would only log a failed claim.
   */
  poll(): Promise<void> {
    this.polled = true;
    this.plansMaybe = true;
    return this.pump();
  }

  subscribe(bus: LiveBus): void {
    const wake = () => {
      this.plansMaybe = true;
      if (this.polled) void this.pump();
    };
    bus.subscribe(DELIVERIES_CHANNEL, (payload) => payload !== this.origin && wake(), wake);
  }

  /** Attempts in flight or waiting in this process. */
  busy(): number {
    let n = 0;
    for (const l of this.lanes.values()) n += l.queue.length + l.inFlight;
    return n;
  }

  stop(): void {
    this.stopped = true;
    for (const l of this.lanes.values()) if (l.timer) clearTimeout(l.timer);
  }
}
