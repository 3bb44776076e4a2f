import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export type CameraStatus = 'live' | 'unavailable' | 'degraded' | 'failing';
export interface ClaimedNode { id: string; name: string; url: string; api_token_enc: string; polled_at: Date }
export interface NodeCamera { id: string; org_id: string; name: string; status: CameraStatus; offline_since: Date | null }

/**
 * The only SQL of the sweeper: the observed state of nodes and cameras (nodes.state,
 * last_seen_at, version, unreachable_since, polled_at; cameras.status, offline_since) and the
 * evidence pressure level. Every transition is a conditional UPDATE ... RETURNING under the
 * row's lock, so of several plane processes exactly one sees it happen and writes its event.
 */
export const sweeperStore = {
  /**
   * Claims the enabled nodes due for a poll: those no process claimed within `leaseMs`. Several
   * plane processes thus share the polling instead of multiplying it.
   */
  async claimNodes(db: Db, now: Date, leaseMs: number): Promise<ClaimedNode[]> {
    const r = await sql<ClaimedNode>`update nodes set polled_at = ${now}
      where enabled and (polled_at is null or polled_at <= ${new Date(now.getTime() - leaseMs)})
      returning id, name, url, api_token_enc, polled_at`.execute(db);
    return r.rows;
  },

  /**
   * The node stopped answering: `opened` when this call started its unreachable interval (at
   * `at`). With `claim`, only while the node's claim is still that one: a result that another
   * process's later claim overtook is stale and changes nothing (undefined).
   */
  async markUnreachable(trx: Db, id: string, at: Date, claim: Date | null): Promise<{ name: string; since: Date; opened: boolean } | undefined> {
    const r = await sql<{ name: string; since: Date; opened: boolean }>`with old as (select id, unreachable_since from nodes
        where id = ${id} and enabled and (${claim}::timestamptz is null or polled_at = ${claim}::timestamptz) for update)
      update nodes n set state = 'unreachable', unreachable_since = coalesce(old.unreachable_since, ${at})
      from old where n.id = old.id
      returning n.name, n.unreachable_since as since, old.unreachable_since is null as opened`.execute(trx);
    return r.rows[0];
  },

  /** The node answered: `was` is the start of the unreachable interval this call ended, if any. `claim` as for markUnreachable. */
  async markReachable(trx: Db, id: string, at: Date, version: string, claim: Date | null): Promise<{ name: string; was: Date | null } | undefined> {
    const r = await sql<{ name: string; was: Date | null }>`with old as (select id, unreachable_since from nodes
        where id = ${id} and enabled and (${claim}::timestamptz is null or polled_at = ${claim}::timestamptz) for update)
      update nodes n set state = 'reachable', unreachable_since = null, last_seen_at = ${at}, version = ${version}
      from old where n.id = old.id
      returning n.name, old.unreachable_since as was`.execute(trx);
    return r.rows[0];
  },

  /** Disabled nodes not yet marked: marked `disabled`; returns them with the unreachable interval they ended. */
  async markDisabled(trx: Db): Promise<Array<{ id: string; name: string; was: Date | null }>> {
    const r = await sql<{ id: string; name: string; was: Date | null }>`with old as (select id, unreachable_since from nodes where not enabled and state <> 'disabled' for update)
      update nodes n set state = 'disabled', unreachable_since = null, polled_at = null
      from old where n.id = old.id and not n.enabled
      returning n.id, n.name, old.unreachable_since as was`.execute(trx);
    return r.rows;
  },

  async camerasOfNode(db: Db, nodeId: string): Promise<NodeCamera[]> {
    return db.selectFrom('cameras').select(['id', 'org_id', 'name', 'status', 'offline_since']).where('node_id', '=', nodeId).orderBy('id').execute();
  },

  /** The organisation of the first superadmin (the bootstrap one): home of events that belong to no organisation. */
  async superadminOrg(db: Db): Promise<string | null> {
    const r = await db.selectFrom('users').select('org_id').where('role', '=', 'superadmin').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
    return r?.org_id ?? null;
  },

  /** Sets each camera's status; writes only the rows that change. */
  async setStatuses(trx: Db, rows: Array<{ id: string; status: CameraStatus }>): Promise<void> {
    if (!rows.length) return;
    await sql`update cameras c set status = x.status
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.status)}::text[]) as x(id, status)
      where c.id = x.id and c.status is distinct from x.status`.execute(trx);
  },

  /** Starts the offline interval of those cameras not already offline; returns the ones it started. */
  async openOffline(trx: Db, ids: string[], at: Date): Promise<string[]> {
    if (!ids.length) return [];
    const r = await sql<{ id: string }>`update cameras set offline_since = ${at}
      where id = any(${ids}::uuid[]) and offline_since is null returning id`.execute(trx);
    return r.rows.map((x) => x.id);
  },

  /** Ends the offline interval of those cameras that are offline; returns each with its start. */
  async closeOffline(trx: Db, ids: string[]): Promise<Array<{ id: string; was: Date }>> {
    if (!ids.length) return [];
    const r = await sql<{ id: string; was: Date }>`with old as (select id, offline_since from cameras where id = any(${ids}::uuid[]) and offline_since is not null for update)
      update cameras c set offline_since = null from old where c.id = old.id returning c.id, old.offline_since as was`.execute(trx);
    return r.rows;
  },

  /** Bytes held in the evidence storage, from the per-organisation accounting (no directory walk). */
  async evidenceBytes(db: Db): Promise<number> {
    const r = await sql<{ bytes: string | number }>`select coalesce(sum(bytes), 0) as bytes from org_evidence_usage`.execute(db);
    return Number(r.rows[0]?.bytes ?? 0);
  },

  /** Moves the pressure level; returns the level it moved from, or undefined when it did not change. */
  async moveLevel(trx: Db, level: number, usedPercent: number, at: Date): Promise<number | undefined> {
    const r = await sql<{ was: number }>`with old as (select level from evidence_pressure where id = 1 for update)
      update evidence_pressure p set level = ${level}, used_percent = ${usedPercent}, measured_at = ${at}
      from old where p.id = 1 and old.level <> ${level} returning old.level as was`.execute(trx);
    return r.rows[0] ? Number(r.rows[0].was) : undefined;
  },
};
