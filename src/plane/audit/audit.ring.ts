import { iso } from '../../common/time.js';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { channels, type LiveBus } from '../live/bus.js';
import { ReplayRing } from '../live/replay-ring.js';
import { auditStore, type AuditRow } from './audit.store.js';

/** What an audit stream frame carries: the row without params and user_agent (8 KiB notify bound). */
export interface AuditFrame {
  seq: number;
  id: string;
  occurred_at: string;
  ended_at: string | null;
  org_id: string | null;
  actor_id: string | null;
  actor_name: string;
  actor_role: string;
  ip: string;
  action: string;
  object_type: string;
  object_id: string | null;
  object_name: string;
  node_id: string | null;
  updated: boolean;
}

export function frameOf(row: AuditRow, updated: boolean): AuditFrame {
  return {
    seq: Number(row.seq),
    id: row.id,
    occurred_at: iso(row.occurred_at),
    ended_at: row.ended_at ? iso(row.ended_at) : null,
    org_id: row.org_id,
    actor_id: row.actor_id,
    actor_name: row.actor_name,
    actor_role: row.actor_role,
    ip: row.ip,
    action: row.action,
    object_type: row.object_type,
    object_id: row.object_id,
    object_name: row.object_name,
    node_id: row.node_id,
    updated,
  };
}

/**
 * The last `size` audit frames in stream order, the same in every plane process: filled from
 * the database at start and after every LISTEN reconnect, and from NOTIFY in between.
 */
export class AuditRing {
  private readonly ring: ReplayRing<AuditFrame>;
  private readonly subscribers = new Set<(f: AuditFrame) => void>();
  private catchingUp: Promise<void> | null = null;
  private held: AuditFrame[] | null = null;

  constructor(
    private readonly db: Db,
    private readonly size: number,
    private readonly log: Logger,
  ) {
    this.ring = new ReplayRing(size);
  }

  /** Highest seq this process knows; `g:<n>` above it points to the future. */
  get head(): number {
    return this.ring.last;
  }
  /** A catch-up has been asked for (by the start-up, a resume or a reconnect since). */
  private requested = false;

  start(bus: LiveBus): void {
    bus.subscribe(
      channels.audit,
      (payload) => {
        const frame = JSON.parse(payload) as AuditFrame;
        // During a catch-up, live frames wait so that none overtakes the rows being read.
        if (this.held) this.held.push(frame);
        else this.accept([frame]);
      },
      () => {
        // The first catch-up is the start-up's, after the migrations: a LISTEN connected before
        // it has nothing to catch up with (and on a new database not even the table). Once that
        // has been asked for, every reconnect catches up, also after a failed first one.
        if (this.requested) void this.catchUp();
      },
    );
  }

  /** Reads what the database has past our head (start, reconnect, or a gap). */
  catchUp(): Promise<void> {
    this.requested = true;
    if (!this.catchingUp) {
      this.held = [];
      this.catchingUp = (async () => {
        try {
          if (!this.ring.length && this.ring.base === 0) {
            const rows = await auditStore.latest(this.db, this.size);
            this.ring.reset([], rows.length ? Number(rows[0]!.seq) - 1 : await auditStore.headSeq(this.db));
            this.accept(rows.map((r) => frameOf(r, r.ended_at !== null)));
          }
          for (;;) {
            const rows = await auditStore.since(this.db, this.head, 1000);
            this.accept(rows.map((r) => frameOf(r, r.ended_at !== null)));
            if (rows.length < 1000) break;
          }
        } catch (err) {
          this.log.warn({ err: (err as Error).message }, 'audit ring catch-up failed; retried on reconnect');
        } finally {
          const held = this.held ?? [];
          this.held = null;
          this.accept(held.sort((a, b) => a.seq - b.seq));
          this.catchingUp = null;
        }
      })();
    }
    return this.catchingUp;
  }

  private accept(frames: AuditFrame[]): void {
    for (const f of frames) {
      if (f.seq <= this.head) continue; // already have it (NOTIFY and catch-up overlap)
      this.ring.push(f);
      for (const fn of this.subscribers) fn(f);
    }
  }

  /** Frames after `seq`, or null when `seq` is older than the ring holds. */
  after(seq: number): AuditFrame[] | null {
    return this.ring.after(seq);
  }

  subscribe(fn: (f: AuditFrame) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }
}
