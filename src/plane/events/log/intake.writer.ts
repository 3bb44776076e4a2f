import type { RawBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import { pgCode } from '../../db/pg-errors.js';
import { eventsStore, type AloneToken, type EventCamera, type EventInsert } from './events.store.js';

export type { AloneToken };

/** What one request's batch got from the statement that wrote it. */
export interface AloneWritten {
  purge_day: string | null;
  /** the token as the statement found it; null when it refused it (nothing was written) */
  token: { rate_limit: number | null; last_used_at: Date | null } | null;
  inserted: Array<{ id: string; seq: number; camera: EventCamera | null }>;
}

/**
 * Work in the statement's transaction on its batches' inserted rows (the notification outbox):
 * each batch collects its items, then one write takes those of all merged batches (they are one
 * token's, so one organisation's).
 */
export interface Within<T = unknown> {
  collect(inserted: AloneWritten['inserted']): T[];
  write(trx: Db, items: T[]): Promise<unknown>;
}

/**
 * Work the statement itself does for its batches (the notification outbox, planned ahead): the
 * items of all merged batches go into one part of the statement, which may read `ins` (the id of
 * each row it inserted).
 */
export interface Alongside<T = unknown> {
  items: T[];
  statement(items: T[]): RawBuilder<unknown>;
}

interface Part {
  rows: EventInsert[];
  cameraIds: string[];
  within?: Within | undefined;
  alongside?: Alongside | undefined;
  done(w: AloneWritten): void;
  fail(err: unknown): void;
}
interface Queue {
  key: string;
  orgId: string;
  token: AloneToken;
  parts: Part[];
  running: number;
}

// Statements of one token in flight at once; its batches that arrive meanwhile wait and go
// together in the next.
const IN_FLIGHT = 2;
// Statements of all tokens in flight at once (the pool holds 10 connections, other work needs some).
const IN_FLIGHT_ALL = 6;
// Rows of one merged statement (a request holds at most 500).
const MAX_ROWS = 2000;

/**
 * Writes the batches of eventsStore.insertAlone (the one-statement path of intake). While
 * IN_FLIGHT statements of a token run (or IN_FLIGHT_ALL of all tokens), batches of that token
 * that arrive queue up and are written by one statement, in arrival order: each batch still gets
 * its positions in its own item order, all of them commit at once, and the statement's cost (its
 * round trip, plan, commit and WAL flush, its notice) is shared. Under load this is what keeps single-event requests from
 * being bound by one commit each. A merged statement that the server refused is retried batch
 * by batch, so one batch's failure is never another's; one whose outcome is unknown (the
 * connection failed, perhaps after the commit) is not retried, so no batch is written twice.
 */
export class IntakeWriter {
  private running = 0;
  private readonly queues = new Map<string, Queue>();

  constructor(private readonly db: Db) {}

  write(
    orgId: string,
    token: AloneToken,
    rows: EventInsert[],
    cameraIds: string[],
    work: { within?: Within | undefined; alongside?: Alongside | undefined } = {},
  ): Promise<AloneWritten> {
    // Batches share a statement only under one secret: the statement checks one (a rotated
    // token's old and new secrets are two queues, the old one refused alone).
    const key = token.secret_sha256 ? `${token.id}:${Buffer.from(token.secret_sha256).toString('hex')}` : token.id;
    return new Promise((done, fail) => {
      let q = this.queues.get(key);
      if (!q) {
        q = { key, orgId, token, parts: [], running: 0 };
        this.queues.set(key, q);
      }
      q.parts.push({ rows, cameraIds, ...work, done, fail });
      this.next();
    });
  }

  private next(): void {
    // Tokens take turns in the order they first queued (Map order).
    for (const q of this.queues.values()) {
      if (this.running >= IN_FLIGHT_ALL) return;
      if (!q.parts.length || q.running >= IN_FLIGHT) continue;
      const take: Part[] = [];
      let n = 0;
      while (q.parts.length && (!take.length || n + q.parts[0]!.rows.length <= MAX_ROWS)) {
        const p = q.parts.shift()!;
        n += p.rows.length;
        take.push(p);
      }
      q.running++;
      this.running++;
      void this.run(q.orgId, q.token, take).finally(() => {
        q.running--;
        this.running--;
        if (!q.running && !q.parts.length) this.queues.delete(q.key);
        this.next();
      });
    }
  }

  private async run(orgId: string, token: AloneToken, parts: Part[]): Promise<void> {
    let written: AloneWritten;
    try {
      written = await this.statement(orgId, token, parts);
    } catch (err) {
      if (parts.length === 1 || !rolledBack(err)) {
        for (const p of parts) p.fail(err);
        return;
      }
      for (const p of parts) {
        try {
          p.done(await this.statement(orgId, token, [p]));
        } catch (e) {
          p.fail(e);
        }
      }
      return;
    }
    if (parts.length === 1) {
      parts[0]!.done(written);
      return;
    }
    const byId = new Map(written.inserted.map((i) => [i.id, i]));
    for (const p of parts) {
      const mine: AloneWritten['inserted'] = [];
      for (const r of p.rows) {
        const i = byId.get(r.id);
        if (i) mine.push(i);
      }
      p.done({ purge_day: written.purge_day, token: written.token, inserted: mine });
    }
  }

  private statement(orgId: string, token: AloneToken, parts: Part[]): Promise<AloneWritten> {
    const rows = parts.length === 1 ? parts[0]!.rows : parts.flatMap((p) => p.rows);
    const cameraIds = parts.length === 1 ? parts[0]!.cameraIds : [...new Set(parts.flatMap((p) => p.cameraIds))];
    const along = parts.flatMap((p) => (p.alongside ? [p.alongside] : []));
    const extra = along.length ? along[0]!.statement(along.flatMap((a) => a.items)) : undefined;
    if (!parts.some((p) => p.within)) return eventsStore.insertAlone(this.db, orgId, token, rows, cameraIds, extra);
    // A batch with work of its own (notification deliveries) commits with it: the statement and
    // that work share a transaction, still one for all merged batches.
    return this.db.transaction().execute(async (trx) => {
      const written = await eventsStore.insertAlone(trx, orgId, token, rows, cameraIds, extra);
      const byId = new Map(written.inserted.map((i) => [i.id, i]));
      const items: unknown[] = [];
      let within: Within | undefined;
      for (const p of parts) {
        if (!p.within) continue;
        within ??= p.within;
        const mine = p.rows.flatMap((r) => byId.get(r.id) ?? []);
        if (mine.length) items.push(...p.within.collect(mine));
      }
      if (within && items.length) await within.write(trx, items);
      return written;
    });
  }
}

/**
 * Whether the server answered the statement with an error (so its transaction rolled back), not
 * a connection failure or shutdown after which the commit may have happened.
 */
function rolledBack(err: unknown): boolean {
  const code = pgCode(err);
  return code !== undefined && !/^(08|57|58|53|XX)/.test(code);
}
