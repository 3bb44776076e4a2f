import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { AuditTable, Schema } from '../db/schema.js';

// Held from the audit insert to commit, so that seq order is commit order: a stream resumed
// from g:<n> can then never miss a record committed later with a smaller number.
const AUDIT_SEQ_LOCK = 724_201_002;

/** A row as written: the table's columns less those the database fills, params as an object. */
export type AuditInsert = Omit<Selectable<AuditTable>, 'seq' | 'extensions' | 'search' | 'params'> & {
  params: Record<string, unknown>;
};

export interface AuditRow extends AuditInsert { seq: number }

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
  limit: number;
}

const ROW_COLUMNS = [
  'id', 'seq', 'occurred_at', 'ended_at', 'org_id', 'actor_id', 'actor_name', 'actor_role', 'ip', 'user_agent',
  'action', 'object_type', 'object_id', 'object_name', 'params', 'node_id',
] as const;

// RFC 3339 in UTC with milliseconds, as Date.toISOString() writes it (fixed width: sorts as time).
const ISO_UTC = (col: string) => sql<string>`to_char(${sql.ref(col)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

function filtered(db: Db, f: AuditFilter) {
  let q = db.selectFrom('audit');
  if (f.orgId) q = q.where('org_id', '=', f.orgId);
  if (f.before) q = q.where((eb: ExpressionBuilder<Schema, 'audit'>) =>
    eb(eb.refTuple('occurred_at', 'id'), '<', eb.tuple(f.before!.ts, f.before!.id)));
  if (f.occurredFrom) q = q.where('occurred_at', '>=', f.occurredFrom);
  if (f.occurredTo) q = q.where('occurred_at', '<=', f.occurredTo);
  if (f.actorId) q = q.where('actor_id', '=', f.actorId);
  if (f.action) q = q.where('action', '=', f.action);
  if (f.objectType !== null) q = q.where('object_type', '=', f.objectType);
  if (f.objectId) q = q.where('object_id', '=', f.objectId);
  if (f.nodeId) q = q.where('node_id', '=', f.nodeId);
  if (f.words.length) {
    const query = f.words.map((w) => `'${w.replace(/'/g, "''")}':*`).join(' & ');
    q = q.where(sql<boolean>`search @@ to_tsquery('simple', ${query})`);
  }
  // Qualified: a select list may reuse these names for formatted values.
  return q.orderBy('audit.occurred_at', 'desc').orderBy('audit.id', 'desc').limit(f.limit);
}

function listQuery(db: Db, f: AuditFilter) {
  return filtered(db, f).select(ROW_COLUMNS);
}

/** The only SQL of the audit trail. */
export const auditStore = {
  async insert(db: Db, row: AuditInsert): Promise<number> {
    await sql`select pg_advisory_xact_lock(${AUDIT_SEQ_LOCK})`.execute(db);
    const r = await db.insertInto('audit')
      .values({ ...row, params: JSON.stringify(row.params), seq: sql<number>`nextval('audit_seq')` })
      .returning('seq').executeTakeFirstOrThrow();
    return Number(r.seq);
  },

  /** Closes a begun record (sets ended_at); a new seq carries the `updated` frame. */
  async close(db: Db, id: string, occurredAt: Date, endedAt: Date, maxExtensions: number): Promise<AuditRow | undefined> {
    await sql`select pg_advisory_xact_lock(${AUDIT_SEQ_LOCK})`.execute(db);
    const r = await db.updateTable('audit')
      .set({ ended_at: endedAt, seq: sql<number>`nextval('audit_seq')`, extensions: sql<number>`extensions + 1` })
      .where('id', '=', id).where('occurred_at', '=', occurredAt).where('extensions', '<', maxExtensions)
      .returning(ROW_COLUMNS).executeTakeFirst();
    return r as AuditRow | undefined;
  },

  async headSeq(db: Db): Promise<number> {
    const r = await db.selectFrom('audit').select(sql<number>`coalesce(max(seq), 0)`.as('head')).executeTakeFirstOrThrow();
    return Number(r.head);
  },

  async list(db: Db, f: AuditFilter): Promise<AuditRow[]> {
    return (await listQuery(db, f).execute()) as AuditRow[];
  },

  /**
   * The same page as `list`, rendered by the database as the JSON array of the API's rows
   * (fields and order of `jsonRow`, timestamps as RFC 3339 UTC with milliseconds). The plane
   * then neither parses nor re-serialises 100 rows per page: the hot path of GET /audit.
   */
  async listJson(db: Db, f: AuditFilter): Promise<{ head: number; rows: string }> {
    // row_to_json over a typed subquery costs the server about half of json_build_object.
    const page = filtered(db, f).select([
      'id', ISO_UTC('occurred_at').as('occurred_at'), ISO_UTC('ended_at').as('ended_at'), 'org_id', 'actor_id', 'actor_name',
      'actor_role', 'ip', 'user_agent', 'action', 'object_type', 'object_id', 'object_name', 'params', 'node_id',
    ]);
    const rows = db.selectFrom(page.as('r'))
      .select(sql<string>`coalesce(json_agg(r order by r.occurred_at desc, r.id desc), '[]')::text`.as('rows'));
    // One statement, one snapshot: a record missing from the page was committed later, and as
    // seq order is commit order its seq is above this head. The stream delivers it exactly once.
    const r = await db.selectNoFrom([sql<number>`(select coalesce(max(seq), 0) from audit)`.as('head'), rows.as('rows')])
      .executeTakeFirstOrThrow();
    return { head: Number(r.head), rows: r.rows as string };
  },

  async get(db: Db, id: string, occurredAt: Date, orgId: string | null): Promise<AuditRow | undefined> {
    let q = db.selectFrom('audit').select(ROW_COLUMNS).where('id', '=', id).where('occurred_at', '=', occurredAt);
    if (orgId) q = q.where('org_id', '=', orgId);
    return (await q.executeTakeFirst()) as AuditRow | undefined;
  },

  /** Records after `seq` in stream order: fills the ring at start and after a LISTEN reconnect. */
  async since(db: Db, seq: number, limit: number): Promise<AuditRow[]> {
    return (await db.selectFrom('audit').select(ROW_COLUMNS).where('seq', '>', seq).orderBy('seq').limit(limit).execute()) as AuditRow[];
  },

  async latest(db: Db, limit: number): Promise<AuditRow[]> {
    const rows = await db.selectFrom('audit').select(ROW_COLUMNS).orderBy('seq', 'desc').limit(limit).execute();
    return (rows as AuditRow[]).reverse();
  },

  async ensurePartitions(db: Db, from: Date, to: Date): Promise<void> {
    await sql`select argus_ensure_audit_partitions(${from}, ${to})`.execute(db);
  },
};
