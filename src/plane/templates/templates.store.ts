import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { TemplateDoc } from './template.doc.js';
import type { TemplateRecord } from './templates.types.js';

export type { TemplateRecord };

const COLUMNS = [
  'id',
  'org_id',
  'name',
  'detector_match',
  'version',
  'doc',
  'system',
  'enabled',
  'unknown_fields',
  'updated_at',
] as const;

/** The channel that tells every plane process to drop its cached templates of an organisation ('*': system ones, all). */
export const TEMPLATES_CHANNEL = 'argus_templates';

/** The only SQL of event templates. */
export const templatesStore = {
  /** System templates plus those of `orgId` (null: every organisation), by id. */
  async list(db: Db, q: { orgId: string | null; after: string | null; limit: number }): Promise<TemplateRecord[]> {
    let s = db
      .selectFrom('event_templates')
      .select(COLUMNS)
      .orderBy('id')
      .limit(q.limit + 1);
    if (q.orgId) s = s.where((eb) => eb.or([eb('org_id', '=', q.orgId), eb('org_id', 'is', null)]));
    if (q.after) s = s.where('id', '>', q.after);
    return (await s.execute()) as TemplateRecord[];
  },

  /** Enabled templates that apply to an organisation's events: its own and the system ones. */
  async forIntake(db: Db, orgId: string): Promise<TemplateRecord[]> {
    return (await db
      .selectFrom('event_templates')
      .select(COLUMNS)
      .where('enabled', '=', true)
      .where((eb) => eb.or([eb('org_id', '=', orgId), eb('org_id', 'is', null)]))
      .orderBy('id')
      .execute()) as TemplateRecord[];
  },

  async get(db: Db, id: string, opts: { lock?: boolean } = {}): Promise<TemplateRecord | undefined> {
    let s = db.selectFrom('event_templates').select(COLUMNS).where('id', '=', id);
    if (opts.lock) s = s.forUpdate();
    return (await s.executeTakeFirst()) as TemplateRecord | undefined;
  },

  async countInOrg(db: Db, orgId: string): Promise<number> {
    const r = await db
      .selectFrom('event_templates')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  },

  async nameTaken(db: Db, orgId: string | null, name: string, exceptId?: string): Promise<boolean> {
    const r = await sql<{ id: string }>`select id from event_templates
      where coalesce(org_id, '00000000-0000-0000-0000-000000000000'::uuid) = coalesce(${orgId}::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
        and lower(name) = lower(${name}) and id is distinct from ${exceptId ?? null}::uuid limit 1`.execute(db);
    return r.rows.length > 0;
  },

  async insert(db: Db, t: Omit<TemplateRecord, 'version' | 'updated_at'>, now: Date): Promise<TemplateRecord> {
    return (await db
      .insertInto('event_templates')
      .values({
        id: t.id,
        org_id: t.org_id,
        name: t.name,
        detector_match: t.detector_match,
        doc: JSON.stringify(t.doc),
        system: t.system,
        enabled: t.enabled,
        unknown_fields: JSON.stringify(t.unknown_fields),
        created_at: now,
        updated_at: now,
      })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow()) as TemplateRecord;
  },

  async update(
    db: Db,
    id: string,
    set: { name: string; doc: TemplateDoc; detector_match: string; enabled: boolean; unknown_fields: string[] },
    now: Date,
  ): Promise<TemplateRecord> {
    return (await db
      .updateTable('event_templates')
      .set((eb) => ({
        name: set.name,
        doc: JSON.stringify(set.doc),
        detector_match: set.detector_match,
        enabled: set.enabled,
        unknown_fields: JSON.stringify(set.unknown_fields),
        updated_at: now,
        version: eb('version', '+', 1),
      }))
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirstOrThrow()) as TemplateRecord;
  },

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('event_templates').where('id', '=', id).execute();
  },

  /** Queued in the transaction: delivered to every process (this one too) when it commits. */
  async announce(db: Db, orgId: string | null): Promise<void> {
    await sql`select pg_notify(${TEMPLATES_CHANNEL}, ${orgId ?? '*'})`.execute(db);
  },
};
