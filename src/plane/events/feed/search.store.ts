import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import { feedWhere, EVENT_SELECT, type EventRow, type FeedFilter } from './events.read.store.js';

/** A parsed feed search (search.ts parses it); declared here, the lower module, which builds its SQL. */
export interface SearchQuery {
  words: string[];
  phrases: string[];
  fields: Array<{ key: string; values: string[] }>;
}

/** A lexeme quoted for tsquery text (the whole text is a bound parameter, never SQL). */
const lexeme = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * The tsquery of a search: free words and phrases parsed the way intake parsed the free text
 * (to_tsvector 'simple'), field terms as the verbatim `key:value` lexemes intake wrote. One
 * tsquery, so the GIN index on `search` answers it.
 */
export function tsQuery(q: SearchQuery): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [
    ...q.words.map((w) => sql`plainto_tsquery('simple', ${w})`),
    ...q.phrases.map((p) => sql`phraseto_tsquery('simple', ${p})`),
    ...q.fields.map((f) => sql`${f.values.map((v) => lexeme(`${f.key}:${v}`.slice(0, 512))).join(' | ')}::tsquery`),
  ];
  return sql`(${sql.join(parts, sql` && `)})`;
}

/** The SQL of feed searches. */
export const searchStore = {
  /** The GIN search index of every event partition, newest partition first (names sort by day). */
  async partitionSearchIndexes(db: Db): Promise<string[]> {
    const r = await sql<{ index: string }>`select ic.oid::regclass::text as index
      from pg_inherits h join pg_class t on t.oid = h.inhrelid join pg_index i on i.indrelid = h.inhrelid
        join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam
      where h.inhparent = 'events'::regclass and am.amname = 'gin'
      order by t.relname desc`.execute(db);
    return r.rows.map((x) => x.index);
  },

  /** Empties one GIN index's pending list into the index; returns the pages it emptied (0 when there were none). */
  async cleanPending(db: Db, index: string): Promise<number> {
    const r = await sql<{ pages: number }>`select gin_clean_pending_list(${index}::regclass)::int as pages`.execute(db);
    return Number(r.rows[0]?.pages ?? 0);
  },

  /**
   * One statement under a statement time-out: the candidates (every filter but the page cursor,
   * at most limit + 1 of them, found through the GIN index), their count, and the requested page
   * of them joined to the rows by primary key.
   */
  async page(
    db: Db,
    f: FeedFilter,
    q: SearchQuery,
    candidateLimit: number,
    deadlineMs: number,
  ): Promise<{ candidates: number; rows: EventRow[] }> {
    return db.transaction().execute(async (trx) => {
      // A generic plan: planning this statement over ~36 day partitions cost 5-9 ms of server CPU
      // per search (custom plans, chosen by PostgreSQL since a generic plan's estimate counts every
      // partition), more than running a selective search (under 1 ms at 10M events); every plan of
      // it reads the GIN index of each partition whatever the words are. Without JIT: that
      // estimate crosses jit_above_cost, and compiling ~450 functions took 240 ms per search.
      await sql`select set_config('statement_timeout', ${String(Math.max(1, Math.round(deadlineMs)))}, true),
        set_config('plan_cache_mode', 'force_generic_plan', true), set_config('jit', 'off', true)`.execute(trx);
      const after = f.after ? sql`(c.occurred_at, c.id) < (${f.after.ts}, ${f.after.id})` : sql`true`;
      const r = await sql<EventRow & { candidates: number }>`
        with cand as materialized (
          select e.occurred_at, e.id from events e
          where ${feedWhere({ ...f, after: null })} and e.search @@ ${tsQuery(q)}
          limit ${candidateLimit + 1}
        ), pg as (
          select c.occurred_at, c.id from cand c where ${after} order by c.occurred_at desc, c.id desc limit ${f.limit + 1}
        )
        select (select count(*) from cand) as candidates, p.* from (select 1) one left join lateral (
          select ${EVENT_SELECT} from pg join events e on e.occurred_at = pg.occurred_at and e.id = pg.id
            left join cameras c on c.id = e.camera_id left join nodes n on n.id = e.node_id
        ) p on true
        order by p.occurred_at desc, p.id desc`.execute(trx);
      const candidates = Number(r.rows[0]?.candidates ?? 0);
      const rows = r.rows.filter((x) => x.id !== null).map(({ candidates: _c, ...row }) => row as EventRow);
      return { candidates, rows };
    });
  },
};
