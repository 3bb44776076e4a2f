import { CompiledQuery, sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { AuditTable } from '../db/schema.js';

// Held from the audit insert to commit, so that seq order is commit order: a stream resumed
// from g:<n> can then never miss a record committed later with a smaller number.
const AUDIT_SEQ_LOCK = 724_201_002;

/** A row as written: the table's columns less those the database fills, params as an object. */
export type AuditInsert = Omit<Selectable<AuditTable>, 'seq' | 'extensions' | 'search' | 'doc' | 'params'> & {
  params: Record<string, unknown>;
};

export interface AuditRow extends AuditInsert {
  seq: number;
}

export interface AuditFilter {
  orgId: string | null;
  before: { ts: Date; id: string } | null;
  occurredFrom: Date | null;
  occurredTo: Date | null;
  actorId: string | null;
  action: string | null;
  objectType: string | null;
  objectId: string | null;
  nodeId: string | null;
  /** prefix-matched words, all required */
  words: string[];
  /** a search without any word in it: the page is empty */
  matchesNothing?: boolean;
  limit: number;
}

const ROW_COLUMNS = [
  'id',
  'seq',
  'occurred_at',
  'ended_at',
  'org_id',
  'actor_id',
  'actor_name',
  'actor_role',
  'ip',
  'user_agent',
  'action',
  'object_type',
  'object_id',
  'object_name',
  'params',
  'node_id',
] as const;

/**
 * The WHERE, ORDER BY and LIMIT of a page, as text and parameters. Written out rather than built
 * with the query builder: GET /audit is the hottest read, and building the same query per
 * request cost the plane about a tenth of its CPU there. The text depends only on which
 * filters are set, so each shape is one prepared statement per connection.
 *
 * The limit is written into the text (it is a checked integer of 1..500). As a parameter, the
 * generic plan of a prepared statement guesses it at a tenth of the table and looks costly, so
 * PostgreSQL re-planned every page over all month partitions and their indexes: 0.74 ms of
 * server CPU per page against 0.26 ms with the generic plan (1M rows, bench/plane/audit-pages.ts).
 */
function pageClause(f: AuditFilter): { text: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const arg = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.orgId) where.push(`org_id = ${arg(f.orgId)}`);
  if (f.before) where.push(`(occurred_at, id) < (${arg(f.before.ts)}::timestamptz, ${arg(f.before.id)}::uuid)`);
  if (f.occurredFrom) where.push(`occurred_at >= ${arg(f.occurredFrom)}`);
  if (f.occurredTo) where.push(`occurred_at <= ${arg(f.occurredTo)}`);
  if (f.actorId) where.push(`actor_id = ${arg(f.actorId)}`);
  if (f.action) where.push(`action = ${arg(f.action)}`);
  if (f.objectType !== null) where.push(`object_type = ${arg(f.objectType)}`);
  if (f.objectId) where.push(`object_id = ${arg(f.objectId)}`);
  if (f.nodeId) where.push(`node_id = ${arg(f.nodeId)}`);
  if (f.matchesNothing) where.push('false');
  if (f.words.length) {
    // Each word is a prefix (`:*`); quoted as a tsquery literal, so no word can add operators.
    const query = f.words.map((w) => `'${w.replace(/'/g, "''")}':*`).join(' & ');
    where.push(`search @@ to_tsquery('simple', ${arg(query)})`);
  }
  if (!Number.isSafeInteger(f.limit) || f.limit < 1) throw new Error(`audit page limit ${f.limit}`);
  const limit = f.limit;
  const text = `${where.length ? `where ${where.join(' and ')} ` : ''}order by occurred_at desc, id desc limit ${limit}`;
  return { text, params };
}

/** The only SQL of the audit trail. */
export const auditStore = {
  async insert(db: Db, row: AuditInsert): Promise<number> {
    await sql`select pg_advisory_xact_lock(${AUDIT_SEQ_LOCK})`.execute(db);
    const r = await db
      .insertInto('audit')
      .values({ ...row, params: JSON.stringify(row.params), seq: sql<number>`nextval('audit_seq')` })
      .returning('seq')
      .executeTakeFirstOrThrow();
    return Number(r.seq);
  },

  /** Closes a begun record (sets ended_at); a new seq carries the `updated` frame. */
  async close(
    db: Db,
    id: string,
    occurredAt: Date,
    endedAt: Date,
    maxExtensions: number,
  ): Promise<AuditRow | undefined> {
    await sql`select pg_advisory_xact_lock(${AUDIT_SEQ_LOCK})`.execute(db);
    const r = await db
      .updateTable('audit')
      .set({ ended_at: endedAt, seq: sql<number>`nextval('audit_seq')`, extensions: sql<number>`extensions + 1` })
      .where('id', '=', id)
      .where('occurred_at', '=', occurredAt)
      .where('extensions', '<', maxExtensions)
      .returning(ROW_COLUMNS)
      .executeTakeFirst();
    return r as AuditRow | undefined;
  },

  async headSeq(db: Db): Promise<number> {
    const r = await db
      .selectFrom('audit')
      .select(sql<number>`coalesce(max(seq), 0)`.as('head'))
      .executeTakeFirstOrThrow();
    return Number(r.head);
  },

  async list(db: Db, f: AuditFilter): Promise<AuditRow[]> {
    const page = pageClause(f);
    const r = await db.executeQuery<AuditRow>(
      CompiledQuery.raw(`select ${ROW_COLUMNS.join(', ')} from audit ${page.text}`, page.params),
    );
    return r.rows;
  },

  /**
   * The same page as `list` as the JSON text of its rows array, joined from each record's stored
   * rendering (`doc`, same fields and order as `jsonRow`). The plane neither parses nor
   * re-serialises 100 rows per page: the hot path of GET /audit.
   */
  async listJson(db: Db, f: AuditFilter): Promise<{ head: number; rows: string }> {
    const page = pageClause(f);
    // One statement, one snapshot: a record missing from the page was committed later, and as
    // seq order is commit order its seq is above this head. The stream delivers it exactly once.
    const r = await db.executeQuery<{ head: string; rows: string }>(
      CompiledQuery.raw(
        `select (select coalesce(max(seq), 0) from audit) as head,
              (select '[' || coalesce(string_agg(r.doc, ',' order by r.occurred_at desc, r.id desc), '') || ']'
                 from (select occurred_at, id, doc from audit ${page.text}) r) as rows`,
        page.params,
      ),
    );
    const row = r.rows[0]!;
    return { head: Number(row.head), rows: row.rows };
  },

  async get(db: Db, id: string, occurredAt: Date, orgId: string | null): Promise<AuditRow | undefined> {
    let q = db.selectFrom('audit').select(ROW_COLUMNS).where('id', '=', id).where('occurred_at', '=', occurredAt);
    if (orgId) q = q.where('org_id', '=', orgId);
    return (await q.executeTakeFirst()) as AuditRow | undefined;
  },

  /** Records after `seq` in stream order: fills the ring at start and after a LISTEN reconnect. */
  async since(db: Db, seq: number, limit: number): Promise<AuditRow[]> {
    return (await db
      .selectFrom('audit')
      .select(ROW_COLUMNS)
      .where('seq', '>', seq)
      .orderBy('seq')
      .limit(limit)
      .execute()) as AuditRow[];
  },

  async latest(db: Db, limit: number): Promise<AuditRow[]> {
    const rows = await db.selectFrom('audit').select(ROW_COLUMNS).orderBy('seq', 'desc').limit(limit).execute();
    return (rows as AuditRow[]).reverse();
  },

  async ensurePartitions(db: Db, from: Date, to: Date): Promise<void> {
    await sql`select argus_ensure_audit_partitions(${from}, ${to})`.execute(db);
  },
};
