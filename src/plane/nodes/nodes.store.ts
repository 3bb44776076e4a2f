import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface NodeRecord {
  id: string;
  name: string;
  url: string;
  enabled: boolean;
  state: string;
  last_seen_at: Date | null;
  version: string | null;
  api_token_enc: string;
  auth_backend_secret_enc: string | null;
}
/** A node claimed for a poll, its write token still sealed. */
export interface ClaimedNode {
  id: string;
  name: string;
  url: string;
  api_token_enc: string;
  polled_at: Date;
  last_seen_at: Date | null;
}
/** One poll result to store: the node, when it was polled, under which claim (null: none). */
export interface PollMark {
  id: string;
  at: Date;
  claim: Date | null;
}
const COLUMNS = [
  'id',
  'name',
  'url',
  'enabled',
  'state',
  'last_seen_at',
  'version',
  'api_token_enc',
  'auth_backend_secret_enc',
] as const;

/**
 * The only SQL of nodes. Secrets are stored sealed; the service seals and opens them. The
 * observed state (state, last_seen_at, version, unreachable_since, polled_at) is the sweeper's,
 * written here at its request: every transition is a conditional UPDATE ... RETURNING under the
 * row's lock, so of several plane processes exactly one sees it happen and writes its event.
 */
export const nodesStore = {
  async list(db: Db, q: { after: string | null; limit: number }): Promise<NodeRecord[]> {
    let s = db
      .selectFrom('nodes')
      .select(COLUMNS)
      .orderBy('id')
      .limit(q.limit + 1);
    if (q.after) s = s.where('id', '>', q.after);
    return s.execute();
  },

  async get(db: Db, id: string, opts: { lock?: boolean } = {}): Promise<NodeRecord | undefined> {
    let s = db.selectFrom('nodes').select(COLUMNS).where('id', '=', id);
    if (opts.lock) s = s.forUpdate();
    return s.executeTakeFirst();
  },

  /**
   * Claims the enabled nodes due for a poll: those no process claimed within `leaseMs`. Several
   * plane processes thus share the polling instead of multiplying it.
   */
  async claimNodes(db: Db, now: Date, leaseMs: number): Promise<ClaimedNode[]> {
    const r = await sql<ClaimedNode>`update nodes set polled_at = ${now}
      where enabled and (polled_at is null or polled_at <= ${new Date(now.getTime() - leaseMs)})
      returning id, name, url, api_token_enc, polled_at, last_seen_at`.execute(db);
    return r.rows;
  },

  /**
   * The node stopped answering: `opened` when this call started its unreachable interval (at
   * `at`). With `claim`, only while the node's claim is still that one: a result that another
   * process's later claim overtook is stale and changes nothing (undefined).
   */
  async markUnreachable(
    trx: Db,
    id: string,
    at: Date,
    claim: Date | null,
  ): Promise<{ name: string; since: Date; opened: boolean } | undefined> {
    const r = await sql<{
      name: string;
      since: Date;
      opened: boolean;
    }>`with old as (select id, unreachable_since from nodes
        where id = ${id} and enabled and (${claim}::timestamptz is null or polled_at = ${claim}::timestamptz) for update)
      update nodes n set state = 'unreachable', unreachable_since = coalesce(old.unreachable_since, ${at})
      from old where n.id = old.id
      returning n.name, n.unreachable_since as since, old.unreachable_since is null as opened`.execute(trx);
    return r.rows[0];
  },

  /** The node answered: `was` is the start of the unreachable interval this call ended, if any. `claim` as for markUnreachable. */
  async markReachable(
    trx: Db,
    id: string,
    at: Date,
    version: string,
    claim: Date | null,
  ): Promise<{ name: string; was: Date | null } | undefined> {
    const r = await sql<{ name: string; was: Date | null }>`with old as (select id, unreachable_since from nodes
        where id = ${id} and enabled and (${claim}::timestamptz is null or polled_at = ${claim}::timestamptz) for update)
      update nodes n set state = 'reachable', unreachable_since = null, last_seen_at = ${at}, version = ${version}
      from old where n.id = old.id
      returning n.name, old.unreachable_since as was`.execute(trx);
    return r.rows[0];
  },

  /** markUnreachable for a batch of nodes in one statement; returns the nodes it applied to (a stale claim is left out). */
  async markUnreachableMany(
    trx: Db,
    rows: PollMark[],
  ): Promise<Array<{ id: string; name: string; since: Date; opened: boolean }>> {
    if (!rows.length) return [];
    const r = await sql<{ id: string; name: string; since: Date; opened: boolean }>`with x as (
        select * from unnest(${rows.map((m) => m.id)}::uuid[], ${rows.map((m) => m.at.toISOString())}::timestamptz[], ${rows.map((m) => m.claim?.toISOString() ?? null)}::timestamptz[]) as x(id, at, claim)),
      old as (select n.id, n.unreachable_since, x.at from nodes n join x on x.id = n.id
        where n.enabled and (x.claim is null or n.polled_at = x.claim) order by n.id for update of n)
      update nodes n set state = 'unreachable', unreachable_since = coalesce(old.unreachable_since, old.at)
      from old where n.id = old.id
      returning n.id, n.name, n.unreachable_since as since, old.unreachable_since is null as opened`.execute(trx);
    return r.rows;
  },

  /** markReachable for a batch of nodes in one statement; returns the nodes it applied to with the interval each ended. */
  async markReachableMany(
    trx: Db,
    rows: Array<PollMark & { version: string }>,
  ): Promise<Array<{ id: string; name: string; was: Date | null }>> {
    if (!rows.length) return [];
    const r = await sql<{ id: string; name: string; was: Date | null }>`with x as (
        select * from unnest(${rows.map((m) => m.id)}::uuid[], ${rows.map((m) => m.at.toISOString())}::timestamptz[], ${rows.map((m) => m.claim?.toISOString() ?? null)}::timestamptz[], ${rows.map((m) => m.version)}::text[]) as x(id, at, claim, version)),
      old as (select n.id, n.unreachable_since, x.at, x.version from nodes n join x on x.id = n.id
        where n.enabled and (x.claim is null or n.polled_at = x.claim) order by n.id for update of n)
      update nodes n set state = 'reachable', unreachable_since = null, last_seen_at = old.at, version = old.version
      from old where n.id = old.id
      returning n.id, n.name, old.unreachable_since as was`.execute(trx);
    return r.rows;
  },

  /** The distinct URLs of every node, enabled or not. */
  async urls(db: Db): Promise<string[]> {
    return (await db.selectFrom('nodes').select('url').distinct().orderBy('url').execute()).map((r) => r.url);
  },

  async count(db: Db): Promise<number> {
    const r = await sql<{ n: string }>`select count(*) as n from nodes`.execute(db);
    return Number(r.rows[0]?.n ?? 0);
  },

  /** Disabled nodes not yet marked: marked `disabled`; returns them with the unreachable interval they ended. */
  async markDisabled(trx: Db): Promise<Array<{ id: string; name: string; was: Date | null }>> {
    const r = await sql<{
      id: string;
      name: string;
      was: Date | null;
    }>`with old as (select id, unreachable_since from nodes where not enabled and state <> 'disabled' for update)
      update nodes n set state = 'disabled', unreachable_since = null, polled_at = null
      from old where n.id = old.id and not n.enabled
      returning n.id, n.name, old.unreachable_since as was`.execute(trx);
    return r.rows;
  },

  async insert(
    db: Db,
    n: {
      id: string;
      name: string;
      url: string;
      enabled: boolean;
      api_token_enc: string;
      auth_backend_secret_enc: string | null;
    },
  ): Promise<void> {
    await db.insertInto('nodes').values(n).execute();
  },

  async update(
    db: Db,
    id: string,
    set: Partial<Omit<NodeRecord, 'id' | 'state' | 'last_seen_at' | 'version'>>,
    now: Date,
  ): Promise<void> {
    await db
      .updateTable('nodes')
      .set({ ...set, updated_at: now })
      .where('id', '=', id)
      .execute();
  },

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('nodes').where('id', '=', id).execute();
  },
};
