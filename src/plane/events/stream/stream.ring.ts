import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { channels, type LiveBus } from '../../live/bus.js';
import { ReplayRing } from '../../live/replay-ring.js';
import type { BatchNotice, EventFrame } from '../log/events.frames.js';
import { ownPayloadPrefix } from '../log/notifier.js';

/**
 * What the ring reads of the event log (the log domain's SQL; events/index.ts wires it): the safe
 * head, and frames by stream position.
 */
export interface RingReader {
  safeHead(): Promise<{ head: number; purge_day: string | null }>;
  latest(upTo: number, limit: number): Promise<EventFrame[]>;
  range(after: number, upTo: number, limit: number): Promise<EventFrame[]>;
  at(seqs: number[]): Promise<EventFrame[]>;
}

/** Replay depth of the event stream (document 2, limits). */
export const EVENT_RING_SIZE = 512;
// How long a hole in the positions may wait for its notice before the table settles it under
// the writers' lock. Holes are normal (writers commit out of order and notify after commit) and
// fill by notice within a writer's commit time; settling takes the lock exclusively, which
// holds every writer back for an instant, so it is kept for what no notice fills: a rolled-back
// writer, a lost notice, a range-only notice. At 100 ms the settles themselves stalled intake
// under load (bench/plane/event-stream.ts: 779 events/s accepted, p99 6.5 s).
const GAP_MS = 1000;
const PAGE = 1000;

export interface RingListener {
  frame(f: EventFrame): void;
  /** The purge day changed: every cursor of the old day is void (terminal resync). */
  purgeDay(day: string | null): void;
}

/**
 * The last 512 event frames in stream order, the same in every plane process. Writers commit
 * out of order and publish after commit, so frames are released only up to the `frontier`:
 * every position at or below it is settled (its frame released, or abandoned by a rolled-back
 * writer). Notices carry frames or name their positions; a hole that outlives GAP_MS (a
 * rollback, a lost notice, a range-only notice) is settled from the table under the writers'
 * lock (eventsStore.safeHead). Filled from the table at start and after every LISTEN reconnect.
 */
export class EventRing {
  /** the released frames a resume replays */
  private readonly replay: ReplayRing<EventFrame>;
  private frontier = 0;
  private day: string | null = null;
  private ready = false;
  /** ahead of the frontier: frames waiting for the holes before them (null: settled, no frame) */
  private readonly pending = new Map<number, EventFrame | null>();
  /** ahead of the frontier: positions known to be committed whose frames are being read */
  private inflight = 0;
  private readonly listeners = new Set<RingListener>();
  private gapTimer: NodeJS.Timeout | null = null;
  private gapTarget = 0;
  private settling: Promise<void> | null = null;
  /** A settling has been asked for (by the start-up, a gap or a reconnect since). */
  private requested = false;
  private stopped = false;
  /** Names this process in the notices whose frames it took directly (EventNotifier). */
  readonly origin = randomUUID();
  private readonly ownPrefix = ownPayloadPrefix(this.origin);

  constructor(
    private readonly reader: RingReader,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly size = EVENT_RING_SIZE,
  ) {
    this.replay = new ReplayRing(size);
  }

  /** Every position at or below it is settled; a cursor above it (after a settle) is in the future. */
  get head(): number {
    return this.frontier;
  }
  get purgeDay(): string | null {
    return this.day;
  }
  get isReady(): boolean {
    return this.ready;
  }

  start(bus: LiveBus): void {
    // The first settling is the start-up's, after the migrations (see AuditRing.start); once
    // asked for, every reconnect settles again.
    bus.subscribe(
      channels.events,
      (payload) => this.onPayload(payload),
      () => {
        if (this.requested) void this.settle();
      },
    );
  }

  stop(): void {
    this.stopped = true;
    if (this.gapTimer) clearTimeout(this.gapTimer);
  }

  subscribe(l: RingListener): () => void {
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
    };
  }

  /** Frames after `seq` (oldest first), or null when `seq` is older than the ring holds. */
  after(seq: number): EventFrame[] | null {
    return this.replay.after(seq);
  }

  /**
   * Settles every position up to the database's safe head: at start it loads the newest
   * frames; later it reads the holes. Concurrent calls share one run.
   */
  settle(): Promise<void> {
    this.requested = true;
    if (!this.settling) {
      this.settling = (async () => {
        try {
          const { head, purge_day } = await this.reader.safeHead();
          if (!this.ready) {
            const latest = await this.reader.latest(head, this.size);
            this.replay.reset(latest, latest.length < this.size ? 0 : latest[0]!.seq - 1);
            this.frontier = head;
            this.day = purge_day;
            this.ready = true;
            for (const s of [...this.pending.keys()]) if (s <= head) this.pending.delete(s);
          } else {
            this.setDay(purge_day);
            while (this.frontier < head) {
              const page = await this.reader.range(this.frontier, head, PAGE);
              for (const f of page) if (f.seq > this.frontier && !this.pending.has(f.seq)) this.pending.set(f.seq, f);
              const upTo = page.length === PAGE ? page[page.length - 1]!.seq : head;
              this.releaseThrough(upTo);
            }
          }
          this.advance();
        } catch (err) {
          this.log.warn(
            { err: (err as Error).message },
            'event ring catch-up failed; retried on the next gap or reconnect',
          );
        } finally {
          this.settling = null;
        }
      })();
    }
    return this.settling;
  }

  /** Frames of this process's own commit, before its notice goes out (EventNotifier). */
  take(frames: EventFrame[]): void {
    for (const f of frames) if (f.seq > this.frontier) this.pending.set(f.seq, f);
    if (this.ready) this.advance();
  }

  private onPayload(payload: string): void {
    // Only this process's notices: their frames came through take(), and they carry no purge day.
    if (payload.startsWith(this.ownPrefix)) return;
    const notices = JSON.parse(payload) as BatchNotice[];
    for (const n of Array.isArray(notices) ? notices : [notices]) {
      if (n.purge_day !== undefined) this.setDay(n.purge_day);
      if (n.origin === this.origin) continue; // its frames came through take()
      if (n.frames) {
        for (const f of n.frames) if (f.seq > this.frontier) this.pending.set(f.seq, f);
      } else if (n.seqs) {
        const wanted: number[] = [];
        for (const [a, b] of n.seqs) for (let s = Math.max(a, this.frontier + 1); s <= b; s++) wanted.push(s);
        if (wanted.length) void this.read(wanted);
      }
    }
    if (this.ready) this.advance();
  }

  /** Reads named positions; one that is gone (moved by a later change) is settled empty. */
  private async read(seqs: number[]): Promise<void> {
    this.inflight++;
    try {
      const got = new Map((await this.reader.at(seqs)).map((f) => [f.seq, f]));
      for (const s of seqs) if (s > this.frontier && !this.pending.has(s)) this.pending.set(s, got.get(s) ?? null);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'event frames not read; settled from the table');
    } finally {
      this.inflight--;
    }
    if (this.ready) this.advance();
  }

  /** Releases contiguous positions; a remaining hole is settled from the table after GAP_MS. */
  private advance(): void {
    while (this.pending.has(this.frontier + 1)) {
      const f = this.pending.get(++this.frontier)!;
      this.pending.delete(this.frontier);
      if (f) this.emit(f);
    }
    if (this.pending.size === 0 && this.inflight === 0) return;
    if (this.gapTimer) return;
    this.gapTarget = this.frontier + 1;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      if (this.stopped) return;
      // Still stuck at the same hole: settle it; otherwise wait for the next one.
      if (this.frontier < this.gapTarget) void this.settle();
      else this.advance();
    }, GAP_MS);
    this.gapTimer.unref();
  }

  /** Releases every pending frame up to `seq` in order and moves the frontier there. */
  private releaseThrough(seq: number): void {
    const due = [...this.pending.keys()].filter((s) => s <= seq).sort((a, b) => a - b);
    for (const s of due) {
      const f = this.pending.get(s);
      this.pending.delete(s);
      if (f) this.emit(f);
    }
    if (seq > this.frontier) this.frontier = seq;
  }

  private emit(f: EventFrame): void {
    this.replay.push(f);
    for (const l of this.listeners) l.frame(f);
  }

  private setDay(day: string | null): void {
    if (!this.ready || day === this.day) return;
    this.day = day;
    for (const l of [...this.listeners]) l.purgeDay(day);
  }
}
