import type { Logger } from 'pino';
import { sseComment, sseFrame } from '../../common/sse.js';
import type { Db } from '../db/database.js';
import { channels, notify, type LiveBus } from '../live/bus.js';
import type { CameraCounts } from '../cameras/cameras.service.js';
import type { SweepReport, SweepSink } from '../sweeper/sweep-report.js';
import { fleetStore, type FleetRead, type NodeFrameRow } from './fleet.store.js';
import {
  distinctPolls,
  EMPTY_SUMMARY,
  knownTotalOf,
  nodeFrameOf,
  summaryOf,
  type FleetSummary,
} from './fleet.frames.js';

/** A node's current frame as every stream sends it (`id:`/`data:` text, encoded once). */
interface SnapshotEntry {
  node_id: string;
  seq: number;
  sse: string;
}

/** What one applied sweep brought: the summary and the node frames above the previous head. */
export interface FleetChange {
  summary: FleetSummary;
  previousFrame: number;
  frames: SnapshotEntry[];
}

const REPLAY = sseComment('delivery=replay').slice(0, -1); // `: delivery=replay\n`, right before its frame

/** A replayed frame: the marker the other replaying streams use, then the frame. */
export const replayed = (sse: string) => REPLAY + sse;

/**
 * The fleet as the latest sweep saw it, in this process's memory: the summary and each polled
 * node's newest telemetry frame (the snapshot). The process that swept publishes: it draws the
 * numbers and stores the sweep in one transaction with one NOTIFY; every process (the publisher
 * included) then holds the same summary and frames, the others after reading the stored rows.
 * Requests and streams read only this memory (document 1: no database or node access per request).
 */
export class FleetMonitor implements SweepSink {
  private current: FleetSummary = EMPTY_SUMMARY;
  private currentJson = JSON.stringify(EMPTY_SUMMARY);
  private readonly snapshot = new Map<string, SnapshotEntry>();
  private ordered: SnapshotEntry[] = [];
  private head = 0;
  private readonly listeners = new Set<(c: FleetChange) => void>();
  /** Publishing and loading one at a time, so a sweep is applied whole and once. */
  private serial: Promise<unknown> = Promise.resolve();
  private requested = false;

  constructor(
    private readonly db: Db,
    private readonly cameraCounts: () => Promise<CameraCounts>,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  get summary(): FleetSummary {
    return this.current;
  }
  /** The summary as JSON text, encoded once per sweep (the GET route sends it as it is). */
  get summaryJson(): string {
    return this.currentJson;
  }
  /** The highest node-frame number this process holds. */
  get frameHead(): number {
    return this.head;
  }
  /** Each node's current frame, in number order. */
  get frames(): readonly SnapshotEntry[] {
    return this.ordered;
  }

  /** SSE text of the current summary frame (id = sweep number). */
  summaryFrame(): string {
    return sseFrame(this.currentJson, { id: this.current.seq });
  }

  onChange(fn: (c: FleetChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Loads on every NOTIFY of a stored sweep, and after a reconnect once the start-up has loaded. */
  start(bus: LiveBus): void {
    bus.subscribe(
      channels.monitor,
      () => {
        void this.load();
      },
      () => {
        if (this.requested) void this.load();
      },
    );
  }

  /** The sweeper's hand-over (only in the process that swept): store, tell the others, apply here. */
  publish(report: SweepReport): Promise<void> {
    return this.queue(async () => {
      const polls = distinctPolls(report.polls);
      const cameras = await this.cameraCounts();
      const { summary, rows, missed } = await this.db.transaction().execute(async (trx) => {
        const { seq, firstFrame } = await fleetStore.drawNumbers(trx, polls.length);
        // Another process stored sweeps this one has not loaded yet (its NOTIFY still on the way):
        // they are read now, under the lock, and applied first, so no frame is skipped here.
        const missed = seq - 1 > this.current.seq ? await fleetStore.read(trx, this.head) : null;
        // Only a stale node's summary share needs its last known total (read under the lock).
        const known = await fleetStore.knownTotals(
          trx,
          polls.filter((p) => p.reachable && !p.system_telemetry).map((p) => p.node_id),
        );
        const summary = summaryOf(seq, report, known, cameras);
        const rows: NodeFrameRow[] = polls.map((p, i) => ({
          node_id: p.node_id,
          seq: firstFrame + i,
          known_total: knownTotalOf(p, known.get(p.node_id)),
          frame: JSON.stringify(nodeFrameOf(firstFrame + i, p)),
          streams: p.streams ? JSON.stringify(p.streams) : null,
        }));
        await fleetStore.writeSweep(trx, seq, JSON.stringify(summary), rows, firstFrame);
        await notify(trx, channels.monitor, String(seq));
        return { summary, rows, missed };
      });
      if (missed?.summary) this.apply(JSON.parse(missed.summary) as FleetSummary, missed.summary, missed.nodes, false);
      this.apply(
        summary,
        JSON.stringify(summary),
        rows.map((r) => ({ node_id: r.node_id, seq: r.seq, frame: r.frame })),
        true,
      );
    });
  }

  /** Brings this process up to the stored sweep (start-up, NOTIFY, reconnect). */
  load(): Promise<void> {
    this.requested = true;
    return this.queue(async () => {
      try {
        let read: FleetRead = await fleetStore.read(this.db, this.head);
        if (read.seq === this.current.seq || read.summary === null) return;
        // Stored numbers below ours: the database was replaced; start over from what it holds.
        if (read.seq < this.current.seq) {
          this.snapshot.clear();
          this.head = 0;
          read = await fleetStore.read(this.db, 0);
          if (read.summary === null) return;
        }
        this.apply(JSON.parse(read.summary) as FleetSummary, read.summary, read.nodes, false);
      } catch (err) {
        // Never fatal (the start-up waits on it): the next NOTIFY or reconnect loads again.
        this.log.warn({ err: (err as Error).message }, 'fleet telemetry load failed; retried at the next sweep');
      }
    });
  }

  private queue(work: () => Promise<void>): Promise<void> {
    const run = this.serial.then(work);
    this.serial = run.catch(() => {});
    return run;
  }

  /**
   * Applies a sweep: nodes not listed leave the snapshot, listed ones with a frame replace
   * theirs. `whole`: `nodes` is the full sweep (the publisher's own); otherwise rows without
   * a frame keep the one held.
   */
  private apply(
    summary: FleetSummary,
    summaryJson: string,
    nodes: Array<{ node_id: string; seq: number; frame: string | null }>,
    whole: boolean,
  ): void {
    const previousFrame = this.head;
    const listed = new Set(nodes.map((n) => n.node_id));
    for (const id of [...this.snapshot.keys()]) if (!listed.has(id)) this.snapshot.delete(id);
    const fresh: SnapshotEntry[] = [];
    for (const n of nodes) {
      if (n.frame === null || (!whole && n.seq <= previousFrame)) continue;
      const entry = { node_id: n.node_id, seq: n.seq, sse: sseFrame(n.frame, { id: n.seq }) };
      this.snapshot.set(n.node_id, entry);
      fresh.push(entry);
      if (n.seq > this.head) this.head = n.seq;
    }
    fresh.sort((a, b) => a.seq - b.seq);
    this.ordered = [...this.snapshot.values()].sort((a, b) => a.seq - b.seq);
    this.current = summary;
    this.currentJson = summaryJson;
    const change = { summary, previousFrame, frames: fresh };
    for (const fn of this.listeners) {
      try {
        fn(change);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'fleet telemetry listener failed');
      }
    }
  }
}
