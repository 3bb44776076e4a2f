import type { Db } from '../../db/database.js';
import type { CameraScope } from '../../rights/camera-rights.js';
import { coalesceStore, type OpenCoalesced } from './coalesce.store.js';
import { purgeDayOf, streamCursor } from './cursor.js';
import { batchNotice, boundFrame, frameOfRow, positioned, type EventFrame } from './events.frames.js';
import { eventsStore, type EventCamera } from './events.store.js';
import type { NewEvent } from './events.types.js';
import { framesStore } from './frames.store.js';
import { IntakeWriter, type AloneToken, type AloneWritten, type Within } from './intake.writer.js';
import type { EventNotifier } from './notifier.js';
import type { EventOutbox } from './outbox.port.js';
import { removalStore, type DeletedEvent } from './removal.store.js';

const DAY_MS = 86_400_000;

/** What a committed write publishes: its frames, and the purge day a removal set. */
export interface Written {
  frames: EventFrame[];
  purgeDay?: string;
  /** notification deliveries the write recorded (the outbox wakes its senders after the commit) */
  deliveries?: number;
}

type Change = 'full' | 'partial';

/**
 * One write in progress, inside its transaction: every statement that writes event tables or
 * draws stream positions goes through it, and it collects the frames the commit publishes.
 * New rows bring their frames; changed rows are re-read once, together, before the commit.
 */
export class LogWrite {
  private joined = false;
  private readonly frames: EventFrame[] = [];
  private readonly changed: Array<{ id: string; occurred_at: Date; change: Change }> = [];
  private purgeDay: string | undefined;
  private deliveries = 0;

  constructor(
    readonly trx: Db,
    private readonly outbox: EventOutbox | null = null,
  ) {}

  /** Joins the event writers before the first statement that draws a position (held to commit). */
  private async join(): Promise<void> {
    if (this.joined) return;
    this.joined = true;
    await eventsStore.beginWrite(this.trx);
  }

  /** The purge day in force and the organisation's cameras among `cameraIds`, before joining the writers. */
  prepare(orgId: string, cameraIds: string[]): Promise<{ purge_day: string | null; cameras: EventCamera[] }> {
    return eventsStore.readForWrite(this.trx, orgId, cameraIds);
  }

  /** New events: their rows, and their frames at the positions drawn. Returns each row's seq by id. */
  async insert(orgId: string, tokenId: string | null, events: NewEvent[]): Promise<Map<string, number>> {
    // The statement joins the writers itself, just before it draws positions.
    const seqs = await eventsStore.insertBatch(
      this.trx,
      orgId,
      tokenId,
      events.map((e) => e.row),
    );
    if (events.length) this.joined = true;
    const frames = events.map((e) => positioned(e.frame, seqs.get(e.row.id)!));
    this.frames.push(...frames);
    // The outbox: the deliveries of these events commit or roll back with them (document 4 §13).
    if (this.outbox && frames.length && (await this.outbox.active(orgId, this.trx)))
      this.deliveries += await this.outbox.record(this.trx, orgId, frames);
    return seqs;
  }

  /** Closes an open interval; null when it was not open. */
  async close(id: string, occurredAt: Date, endedAt: Date): Promise<number | null> {
    await this.join();
    const seq = await eventsStore.close(this.trx, id, occurredAt, endedAt);
    if (seq !== null) this.changed.push({ id, occurred_at: occurredAt, change: 'full' });
    return seq;
  }

  /** Stars or unstars a visible event; null when nothing changed. Its frame is partial (no `interval`). */
  async star(scope: CameraScope, id: string, occurredAt: Date, starred: boolean): Promise<number | null> {
    await this.join();
    const seq = await eventsStore.setStarred(this.trx, scope, id, occurredAt, starred);
    if (seq !== null) this.changed.push({ id, occurred_at: occurredAt, change: 'partial' });
    return seq;
  }

  /** Closes the open system intervals of many keys, each at its own time, in one statement. */
  async closeSystemMany(
    keys: Array<{ detector: string; occurredAt: Date; nodeId: string | null; cameraId: string | null; endedAt: Date }>,
  ): Promise<number> {
    if (!keys.length) return 0;
    await this.join();
    return this.rowsChanged(await eventsStore.closeSystemMany(this.trx, keys));
  }

  /** Closes the system intervals whose node or camera is gone. */
  async closeOrphanedSystem(endedAt: Date): Promise<number> {
    await this.join();
    return this.rowsChanged(await eventsStore.closeOrphanedSystem(this.trx, endedAt));
  }

  /** Closes up to `limit` intervals whose close_by has passed. */
  async closeDue(now: Date, limit: number): Promise<number> {
    await this.join();
    return this.rowsChanged(await coalesceStore.closeDue(this.trx, now, limit));
  }

  /** Claims (token, ext_id) keys for new events; returns those claimed here. */
  claimExtIds(
    tokenId: string,
    rows: Array<{ ext_id: string; event_id: string; occurred_at: Date }>,
  ): Promise<Set<string>> {
    return eventsStore.claimExtIds(this.trx, tokenId, rows);
  }

  /** The events already named by (token, ext_id). */
  extIdsOf(tokenId: string, extIds: string[]): Promise<Map<string, string>> {
    return eventsStore.byExtIds(this.trx, tokenId, extIds);
  }

  /** Locks coalescing keys to commit; the open intervals under them (coalesce.store.ts). */
  lockCoalesced(orgId: string, keys: string[]): Promise<OpenCoalesced[]> {
    return coalesceStore.lockOpen(this.trx, orgId, keys);
  }

  /** Repeats moved open intervals on (no new position: their frame comes when they close). */
  extendCoalesced(rows: Array<{ id: string; occurred_at: Date; last_seen_at: Date; close_by: Date }>): Promise<void> {
    return coalesceStore.extend(this.trx, rows);
  }

  /** Retried ext_ids of coalesced repeats name the interval they joined. */
  repointExtIds(tokenId: string, rows: Array<{ ext_id: string; event_id: string; occurred_at: Date }>): Promise<void> {
    return coalesceStore.repointExtIds(this.trx, tokenId, rows);
  }

  /**
   * Removes the events of these keys (locked by the caller's selection) with their idempotency
   * keys, sets the purge day `now` names, and leaves one tombstone (`deleted: true`) per event
   * at a new stream position. Returns the removed events (their attachments are the caller's).
   */
  async remove(keys: Array<{ id: string; occurred_at: Date }>, now: number): Promise<DeletedEvent[]> {
    await this.join();
    const gone = await removalStore.deleteByKeys(this.trx, keys);
    if (!gone.length) return gone;
    await removalStore.deleteExtIds(this.trx, gone);
    const day = purgeDayOf(now);
    await removalStore.setPurgeDay(this.trx, day);
    const seqs = await removalStore.drawSeqs(this.trx, gone.length);
    const frames = gone.map((g, i) => tombstone({ ...g, seq: seqs[i]! }));
    await removalStore.insertTombstones(this.trx, frames, new Date(now));
    this.frames.push(...frames);
    this.purgeDay = day;
    return gone;
  }

  private rowsChanged(rows: Array<{ id: string; occurred_at: Date }>): number {
    for (const r of rows) this.changed.push({ id: r.id, occurred_at: new Date(r.occurred_at), change: 'full' });
    return rows.length;
  }

  /** Before the commit: the frames of changed rows, re-read in one statement. */
  async done(): Promise<Written> {
    if (this.changed.length) {
      const keys = new Map(this.changed.map((c) => [c.id, c]));
      for (const row of await framesStore.ofKeys(this.trx, [...keys.values()]))
        this.frames.push(frameOfRow(row, keys.get(row.id)!.change));
    }
    const w: Written = { frames: this.frames };
    if (this.purgeDay !== undefined) w.purgeDay = this.purgeDay;
    if (this.deliveries) w.deliveries = this.deliveries;
    return w;
  }
}

type AloneInserted = { id: string; seq: number; camera: EventCamera | null };

/**
 * The frames of a one-statement batch: the statement finds the cameras (the rows' node_id comes
 * from it), so a frame's camera_name, node_id and node_name are those of the camera it found, as
 * the full path's prepare() finds them before.
 */
function aloneFrames(events: NewEvent[], inserted: AloneInserted[]): EventFrame[] {
  const byId = new Map(inserted.map((i) => [i.id, i]));
  const frames: EventFrame[] = [];
  for (const e of events) {
    const i = byId.get(e.row.id);
    if (!i) continue;
    const c = i.camera;
    frames.push(
      positioned(
        { ...e.frame, camera_name: c?.name ?? null, node_id: c?.node_id ?? null, node_name: c?.node_name ?? null },
        i.seq,
      ),
    );
  }
  return frames;
}

/** The `deleted` frame of a removed event: its keys as they were, at a new stream position. */
function tombstone(row: Parameters<typeof frameOfRow>[0]): EventFrame {
  const { interval: _omit, ...f } = frameOfRow(row, 'created');
  return boundFrame({ ...f, updated: false, deleted: true });
}

/**
 * The event log: the only code that writes event tables, draws stream positions and publishes
 * frames. A write is "these rows, then their frames after commit": `write` runs it in its own
 * transaction, `writeIn` inside the caller's (whose state change commits with the events), and
 * `publish` sends the frames of a committed write as one notice (never one per row).
 */
export class EventLog {
  private readonly alone: IntakeWriter;

  constructor(
    private readonly db: Db,
    private readonly notifier: EventNotifier,
    /** notifications' outbox: the deliveries of new events, written in their transaction */
    private readonly outbox: EventOutbox | null = null,
  ) {
    this.alone = new IntakeWriter(db);
  }

  /** Write these rows, then their frames after commit. */
  async write<T>(work: (w: LogWrite) => Promise<T>): Promise<T> {
    const { value, written } = await this.db.transaction().execute((trx) => this.writeIn(trx, work));
    this.publish(written);
    return value;
  }

  /** The same inside the caller's transaction: publish `written` once the caller has committed. */
  async writeIn<T>(trx: Db, work: (w: LogWrite) => Promise<T>): Promise<{ value: T; written: Written }> {
    const w = new LogWrite(trx, this.outbox);
    const value = await work(w);
    return { value, written: await w.done() };
  }

  /**
   * A batch that needs nothing else in its transaction (intake without ext_id, attachment or
   * coalescing): one statement through the intake writer, which merges concurrent batches of a
   * token; rows naming no camera of the organisation are left out, and all rows when the token
   * (given with its secret's hash) is no longer enabled with that secret (`token` null). Then its frames. The statement
   * finds the cameras (the rows' node_id comes from it), so a frame's camera_name, node_id and
   * node_name are those of the camera it found, as the full path's prepare() finds them before.
   * When the organisation has notification rules, the statement and the deliveries it gives
   * share one transaction (the outbox, document 4 §13).
   */
  async insertAlone(
    orgId: string,
    token: AloneToken,
    events: NewEvent[],
    cameraIds: string[],
  ): Promise<{
    purge_day: string | null;
    token: AloneWritten['token'];
    inserted: Map<string, { seq: number; camera: EventCamera | null }>;
  }> {
    const outbox = this.outbox && (await this.outbox.active(orgId)) ? this.outbox : null;
    const ahead = outbox
      ? await outbox.ahead(
          orgId,
          this.db,
          events.map((e) => e.frame),
        )
      : null;
    // Planned ahead, the deliveries are a part of the statement; with cooldowns to lock, the
    // statement runs in a transaction that plans and records them.
    const work =
      ahead === 'transaction'
        ? {
            within: {
              collect: (inserted: AloneInserted[]) => aloneFrames(events, inserted),
              write: (trx: Db, frames: EventFrame[]) => outbox!.record(trx, orgId, frames),
            } satisfies Within<EventFrame>,
          }
        : { alongside: ahead ?? undefined };
    const {
      purge_day,
      token: found,
      inserted,
    } = await this.alone.write(
      orgId,
      token,
      events.map((e) => e.row),
      cameraIds,
      work,
    );
    this.publish({ frames: aloneFrames(events, inserted) });
    if (ahead && inserted.length) outbox!.committed();
    return { purge_day, token: found, inserted: new Map(inserted.map((i) => [i.id, i])) };
  }

  /**
   * After commit, outside the transaction (the frames hold no connection or lock): one notice
   * for the write, its frames bounded and in stream order. Not awaited by writers: a lost
   * notice shows to listeners as a gap they settle from the table.
   */
  publish(w: Written | null): void {
    if (!w || !w.frames.length) return;
    if (w.deliveries) this.outbox?.committed();
    const frames = w.frames.map(boundFrame).sort((a, b) => a.seq - b.seq);
    const notice = batchNotice(
      frames[0]!.seq,
      frames[frames.length - 1]!.seq,
      frames,
      w.purgeDay === undefined ? {} : { purge_day: w.purgeDay },
    );
    // A removal's frames go round through the database like any other process's, so this
    // process's ring sees the purge day before them.
    void this.notifier.publish(notice, w.purgeDay === undefined ? frames : undefined);
  }

  /** The cursor of a safe head: every event committed after it is delivered by the stream. */
  async headCursor(): Promise<string> {
    return streamCursor(await eventsStore.safeHead(this.db));
  }

  /** Waits for the writers in flight (and holds new ones back for an instant). */
  async settle(): Promise<void> {
    await eventsStore.safeHead(this.db);
  }

  /** Daily event partitions from 32 days back (the intake window is 30) to 3 days ahead. */
  ensurePartitions(now: number): Promise<number> {
    return eventsStore.ensurePartitions(this.db, new Date(now - 32 * DAY_MS), new Date(now + 3 * DAY_MS));
  }

  /** Prunes up to `limit` tombstones written before `before` that no replay can still need (below the newest `depth` frames). */
  async pruneTombstones(before: Date, depth: number, limit: number, more: () => boolean): Promise<number> {
    const floor = await removalStore.replayFloor(this.db, depth);
    if (floor === null) return 0;
    let total = 0;
    for (let n = limit; n === limit && more();) {
      n = await removalStore.pruneTombstones(this.db, before, floor, limit);
      total += n;
    }
    return total;
  }
}
