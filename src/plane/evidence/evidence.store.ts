import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { AttachmentsTable } from '../db/schema.js';
import { cameraVisible, type CameraScope } from '../rights/camera-rights.js';

/** An attachment as the evidence domain reads it: its row less the checksum and the times. */
export type AttachmentRecord = Omit<Selectable<AttachmentsTable>, 'sha256' | 'event_occurred_at' | 'created_at'>;

export interface RemovedAttachment {
  ref: string;
  org_id: string;
  camera_id: string | null;
  storage_key: string;
  size: number;
}

/** Deleted attachments: their refs kept in purged_attachments (a later download is 410), usage given back. */
async function forget(db: Db, gone: RemovedAttachment[], at: Date): Promise<void> {
  if (!gone.length) return;
  await sql`insert into purged_attachments (ref, org_id, camera_id, purged_at)
    select * , ${at}::timestamptz from unnest(${gone.map((g) => g.ref)}::uuid[], ${gone.map((g) => g.org_id)}::uuid[], ${gone.map((g) => g.camera_id)}::uuid[])
    on conflict do nothing`.execute(db);
  const perOrg = new Map<string, { bytes: number; n: number }>();
  for (const g of gone) {
    const u = perOrg.get(g.org_id) ?? { bytes: 0, n: 0 };
    u.bytes += Number(g.size);
    u.n++;
    perOrg.set(g.org_id, u);
  }
  for (const [orgId, u] of perOrg) {
    await sql`update org_evidence_usage set bytes = greatest(0, bytes - ${u.bytes}), attachments = greatest(0, attachments - ${u.n}) where org_id = ${orgId}`.execute(
      db,
    );
  }
}

/** The only SQL of evidence attachments and their accounting. */
export const evidenceStore = {
  async insert(db: Db, a: AttachmentRecord & { sha256: Uint8Array; created_at: Date }): Promise<void> {
    await db
      .insertInto('attachments')
      .values({ ...a, event_occurred_at: null })
      .execute();
  },

  async usage(db: Db, orgId: string): Promise<{ bytes: number; attachments: number }> {
    const r = await db
      .selectFrom('org_evidence_usage')
      .select(['bytes', 'attachments'])
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return { bytes: Number(r?.bytes ?? 0), attachments: Number(r?.attachments ?? 0) };
  },

  /** Bytes and attachments of every organisation together. */
  async totals(db: Db): Promise<{ bytes: number; attachments: number }> {
    const r = await db
      .selectFrom('org_evidence_usage')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>('bytes'), eb.val(0)).as('bytes'),
        eb.fn.coalesce(eb.fn.sum<number>('attachments'), eb.val(0)).as('attachments'),
      ])
      .executeTakeFirst();
    return { bytes: Number(r?.bytes ?? 0), attachments: Number(r?.attachments ?? 0) };
  },

  async addUsage(db: Db, orgId: string, bytes: number, count: number): Promise<void> {
    await db
      .insertInto('org_evidence_usage')
      .values({ org_id: orgId, bytes, attachments: count })
      .onConflict((oc) =>
        oc.column('org_id').doUpdateSet({
          bytes: sql`org_evidence_usage.bytes + excluded.bytes`,
          attachments: sql`org_evidence_usage.attachments + excluded.attachments`,
        }),
      )
      .execute();
  },

  /** One attachment under the camera-rights rule (an unbound one: its organisation's administrators). */
  async visible(db: Db, scope: CameraScope, ref: string): Promise<AttachmentRecord | undefined> {
    return db
      .selectFrom('attachments as a')
      .select([
        'a.ref',
        'a.org_id',
        'a.token_id',
        'a.backend',
        'a.storage_key',
        'a.content_type',
        'a.size',
        'a.camera_id',
        'a.event_id',
      ])
      .where('a.ref', '=', ref)
      .where(cameraVisible(scope, 'a.camera_id', 'a.org_id'))
      .executeTakeFirst();
  },

  /** The attachments bound to an event, oldest first (a notification's snapshot is chosen among them). */
  async ofEvent(
    db: Db,
    orgId: string,
    eventId: string,
    limit: number,
  ): Promise<Array<Pick<AttachmentRecord, 'ref' | 'content_type' | 'size'>>> {
    return db
      .selectFrom('attachments')
      .select(['ref', 'content_type', 'size'])
      .where('event_id', '=', eventId)
      .where('org_id', '=', orgId)
      .orderBy('ref')
      .limit(limit)
      .execute();
  },

  /** One attachment by ref alone: for a signed snapshot link, whose signature is the right to it. */
  async byRef(db: Db, ref: string): Promise<AttachmentRecord | undefined> {
    return db
      .selectFrom('attachments')
      .select(['ref', 'org_id', 'token_id', 'backend', 'storage_key', 'content_type', 'size', 'camera_id', 'event_id'])
      .where('ref', '=', ref)
      .executeTakeFirst();
  },

  async wasPurgedRef(db: Db, ref: string): Promise<boolean> {
    const r = await sql<{ n: number }>`select 1 as n from purged_attachments where ref = ${ref}`.execute(db);
    return r.rows.length > 0;
  },

  /** Attachments of `orgId` among `refs`, for linking them to new events. */
  async ofOrg(
    db: Db,
    orgId: string,
    refs: string[],
  ): Promise<Array<Pick<AttachmentRecord, 'ref' | 'camera_id' | 'content_type' | 'size'>>> {
    if (!refs.length) return [];
    return db
      .selectFrom('attachments')
      .select(['ref', 'camera_id', 'content_type', 'size'])
      .where('org_id', '=', orgId)
      .where('ref', 'in', refs)
      .execute();
  },

  /**
   * Removes the attachments bound to purged events, remembers their refs (a later download is
   * 410) and gives back usage per organisation; returns what the storage must delete.
   */
  async purgeOfEvents(
    db: Db,
    events: Array<{ id: string; occurred_at: Date }>,
    at: Date,
  ): Promise<Array<{ ref: string; org_id: string; storage_key: string; size: number }>> {
    if (!events.length) return [];
    const r = await sql<RemovedAttachment>`
      delete from attachments a using unnest(${events.map((e) => e.id)}::uuid[], ${events.map((e) => e.occurred_at.toISOString())}::timestamptz[]) as v(id, occurred_at)
      where a.event_id = v.id and a.event_occurred_at = v.occurred_at
      returning a.ref, a.org_id, a.camera_id, a.storage_key, a.size`.execute(db);
    await forget(db, r.rows, at);
    return r.rows.map((g) => ({ ref: g.ref, org_id: g.org_id, storage_key: g.storage_key, size: Number(g.size) }));
  },

  /** Up to `limit` attachments of an organisation, locked (archive cleanup: bytes go before rows). */
  async ofOrgForRemoval(db: Db, orgId: string, limit: number): Promise<RemovedAttachment[]> {
    const r = await sql<RemovedAttachment>`select ref, org_id, camera_id, storage_key, size from attachments
      where org_id = ${orgId} order by ref limit ${limit} for update`.execute(db);
    return r.rows;
  },

  /** Removes attachment rows whose bytes are gone, remembering their refs (410) and giving back usage. */
  async removeRows(db: Db, rows: RemovedAttachment[], at: Date): Promise<void> {
    if (!rows.length) return;
    await sql`delete from attachments where ref = any(${rows.map((g) => g.ref)}::uuid[])`.execute(db);
    await forget(db, rows, at);
  },

  /** A purged attachment the caller would have seen (410 rather than 404). */
  async wasPurged(db: Db, scope: CameraScope, ref: string): Promise<boolean> {
    const r = await sql<{ n: number }>`select 1 as n from purged_attachments p where p.ref = ${ref}
      and ${cameraVisible(scope, 'p.camera_id', 'p.org_id')}`.execute(db);
    return r.rows.length > 0;
  },

  /** Binds unbound attachments to the first event that references them. */
  async link(
    db: Db,
    links: Array<{ ref: string; camera_id: string | null; event_id: string; occurred_at: Date }>,
  ): Promise<void> {
    if (!links.length) return;
    await sql`update attachments a set camera_id = l.camera_id, event_id = l.event_id, event_occurred_at = l.occurred_at
      from unnest(${links.map((l) => l.ref)}::uuid[], ${links.map((l) => l.camera_id)}::uuid[], ${links.map((l) => l.event_id)}::uuid[],
                  ${links.map((l) => l.occurred_at.toISOString())}::timestamptz[]) as l(ref, camera_id, event_id, occurred_at)
      where a.ref = l.ref and a.event_id is null`.execute(db);
  },

  async countPressureDrop(db: Db): Promise<void> {
    await sql`update evidence_counters set pressure_dropped_attachments = pressure_dropped_attachments + 1 where id = 1`.execute(
      db,
    );
  },

  async pressureDropped(db: Db): Promise<number> {
    const r = await sql<{
      n: string;
    }>`select pressure_dropped_attachments as n from evidence_counters where id = 1`.execute(db);
    return Number(r.rows[0]?.n ?? 0);
  },

  /** Forgets up to `limit` refs of attachments removed before `before` (a later download is then 404). */
  async prunePurged(db: Db, before: Date, limit: number): Promise<number> {
    const r = await sql`delete from purged_attachments where ref in (
        select ref from purged_attachments where purged_at < ${before} order by purged_at limit ${limit})`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },
};
