import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import { arrayLiteral, type Scalar } from '../../db/array-literal.js';
import { isUuid } from '../../http/list.js';
import { iso } from '../../../common/time.js';
import { cameraVisible, type CameraScope } from '../../rights/camera-rights.js';
import type { EventCamera, EventInsert } from './events.types.js';

export type { EventCamera, EventInsert };

// The advisory lock of event writers (shared) and of safe-head readers (exclusive).
const EVENT_WRITERS = 724_201_003;

/**
 * THE camera rule of intake, one SQL for both write paths: of `ids`, the cameras of `orgId`
 * (any other id, or one of another shape, names no camera), as a scalar JSON subquery that rides
 * along in the statement that needs it. Reads only cameras and nodes. As JSON (json_to_recordset
 * in insertAlone) rather than a join of its own: the joined form cost about a third more plane
 * and server CPU per single-event request in bench/plane/intake.ts.
 */
function orgCameras(orgId: string, ids: string[]) {
  const keys = ids.filter(isUuid).map((i) => i.toLowerCase());
  return sql`(select coalesce(json_agg(json_build_object('id', c.id, 'node_id', c.node_id, 'name', c.name, 'node_name', n.name)), '[]')
    from cameras c join nodes n on n.id = c.node_id where c.org_id = ${orgId}::uuid and c.id = any(${keys}::uuid[]))`;
}

/**
 * The module token a one-statement batch is written under: with `secret_sha256` (a credential
 * from the process's cache) the statement writes nothing unless a token of this id and hash is
 * still enabled at its snapshot.
 */
export interface AloneToken {
  id: string;
  secret_sha256?: Uint8Array | undefined;
}

/** The token row the statement checks (`tok`): one row when the batch may be written, else none. */
function tokenCheck(t: AloneToken) {
  if (!t.secret_sha256) return sql`select null::int as rate_limit, null::timestamptz as last_used_at, true as ok`;
  return sql`select rate_limit, last_used_at, true as ok from module_tokens
    where id = ${t.id}::uuid and secret_sha256 = ${t.secret_sha256} and enabled`;
}

const col = <K extends keyof EventInsert>(rows: EventInsert[], k: K) => rows.map((r) => r[k]);

const INSERT_COLUMNS =
  sql.raw(`id, occurred_at, seq, org_id, camera_id, node_id, token_id, category, detector, detector_title,
  severity, confidence, "interval", ended_at, template_id, subject_type, subject_ref, ext_id, list_values, fields, payload,
  attachments, search, coalesce_key, last_seen_at, close_by`);

/** The select list of INSERT_COLUMNS over unnestRows, with the node_id and the position drawn as given. */
function insertValues(orgId: string, tokenId: string | null, nodeId: RawBuilder<unknown>, seq: RawBuilder<unknown>) {
  return sql`x.id, x.occurred_at, ${seq}, ${orgId}::uuid, x.camera_id, ${nodeId}, ${tokenId}::uuid, x.category, x.detector,
    x.detector_title, x.severity, x.confidence, x.itv, x.ended_at, x.template_id, x.subject_type, x.subject_ref, x.ext_id,
    x.list_values, x.fields, x.payload, x.attachments,
    to_tsvector('simple', x.search_text) || coalesce(array_to_tsvector(string_to_array(nullif(x.tokens, ''), chr(31))), ''::tsvector),
    x.coalesce_key, x.last_seen_at, x.close_by`;
}

/** The rows as column arrays unnested server-side (one parameter per column), `x` with ordinality `n`. */
function unnestRows(rows: EventInsert[]) {
  const a = (k: keyof EventInsert) => arrayLiteral(col(rows, k) as Scalar[], false);
  const q = (k: keyof EventInsert) => arrayLiteral(col(rows, k) as Scalar[], true);
  const times = (f: (r: EventInsert) => Date | null | undefined) =>
    arrayLiteral(
      rows.map((r) => iso(f(r) ?? null)),
      false,
    );
  return sql`unnest(
    ${a('id')}::uuid[], ${times((r) => r.occurred_at)}::timestamptz[],
    ${a('camera_id')}::uuid[], ${a('node_id')}::uuid[], ${q('category')}::text[],
    ${q('detector')}::text[], ${q('detector_title')}::jsonb[], ${a('severity')}::int2[],
    ${a('confidence')}::float8[], ${a('interval')}::bool[], ${times((r) => r.ended_at)}::timestamptz[],
    ${a('template_id')}::uuid[], ${q('subject_type')}::text[], ${q('subject_ref')}::text[],
    ${q('ext_id')}::text[], ${q('list_values')}::jsonb[], ${q('fields')}::jsonb[],
    ${q('payload')}::jsonb[], ${q('attachments')}::jsonb[], ${q('search_text')}::text[],
    ${arrayLiteral(
      rows.map((r) => r.search_tokens.join('\u001f')),
      true,
    )}::text[], ${q('coalesce_key')}::text[],
    ${times((r) => r.last_seen_at)}::timestamptz[], ${times((r) => r.close_by)}::timestamptz[]
  ) with ordinality as x(id, occurred_at, camera_id, node_id, category, detector, detector_title, severity, confidence, itv, ended_at,
         template_id, subject_type, subject_ref, ext_id, list_values, fields, payload, attachments, search_text, tokens,
         coalesce_key, last_seen_at, close_by, n)`;
}

/** The SQL that writes events (with coalesce.store.ts and removal.store.ts): only the event log calls it. */
export const eventsStore = {
  /**
   * Joins the event writers: call first in a transaction that will draw stream positions. Held
   * to commit; writers share it, so their commits still group. Returns the purge day in force.
   */
  async beginWrite(trx: Db): Promise<{ purge_day: string | null }> {
    const r = await sql<{ purge_day: string | null }>`select pg_advisory_xact_lock_shared(${EVENT_WRITERS}),
      (select to_char(purge_day, 'YYYYMMDD') from event_stream) as purge_day`.execute(trx);
    return { purge_day: r.rows[0]?.purge_day ?? null };
  },

  /**
   * A safe resume point of the stream: every seq at or below it is committed or abandoned. For
   * an instant it waits for the writers in flight (and holds new ones back), then reads the
   * sequence. Take it before a query whose rows the stream continues.
   */
  async safeHead(db: Db): Promise<{ head: number; purge_day: string | null }> {
    return db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${EVENT_WRITERS})`.execute(trx);
      const r = await sql<{ head: number; purge_day: string | null }>`
        select (select case when is_called then last_value else 0 end from event_seq) as head,
               (select to_char(purge_day, 'YYYYMMDD') from event_stream) as purge_day`.execute(trx);
      return { head: Number(r.rows[0]!.head), purge_day: r.rows[0]!.purge_day };
    });
  },

  /**
   * Claims (token, ext_id) keys for new events; returns the ext_ids claimed by this call. A key
   * another transaction holds waits for it; keys are taken in sorted order so that two batches
   * never deadlock.
   */
  async claimExtIds(
    trx: Db,
    tokenId: string,
    rows: Array<{ ext_id: string; event_id: string; occurred_at: Date }>,
  ): Promise<Set<string>> {
    if (!rows.length) return new Set();
    const sorted = [...rows].sort((a, b) => (a.ext_id < b.ext_id ? -1 : a.ext_id > b.ext_id ? 1 : 0));
    const r = await sql<{ ext_id: string }>`insert into event_ext_ids (token_id, ext_id, event_id, occurred_at)
      select ${tokenId}::uuid, x.ext_id, x.event_id, x.occurred_at
      from unnest(${sorted.map((s) => s.ext_id)}::text[], ${sorted.map((s) => s.event_id)}::uuid[],
                  ${sorted.map((s) => s.occurred_at.toISOString())}::timestamptz[]) with ordinality as x(ext_id, event_id, occurred_at, n)
      order by x.n
      on conflict do nothing
      returning ext_id`.execute(trx);
    return new Set(r.rows.map((x) => x.ext_id));
  },

  /** The events already named by (token, ext_id). */
  async byExtIds(db: Db, tokenId: string, extIds: string[]): Promise<Map<string, string>> {
    if (!extIds.length) return new Map();
    const rows = await db
      .selectFrom('event_ext_ids')
      .select(['ext_id', 'event_id'])
      .where('token_id', '=', tokenId)
      .where('ext_id', 'in', extIds)
      .execute();
    return new Map(rows.map((r) => [r.ext_id, r.event_id]));
  },

  /**
   * What a writer reads before it inserts, without joining the writers yet: the purge day in
   * force and the cameras among `cameraIds` (orgCameras), in one round trip.
   */
  async readForWrite(
    trx: Db,
    orgId: string,
    cameraIds: string[],
  ): Promise<{ purge_day: string | null; cameras: EventCamera[] }> {
    const cams = cameraIds.length ? orgCameras(orgId, cameraIds) : sql`null`;
    const r = await sql<{
      purge_day: string | null;
      cameras: EventCamera[] | null;
    }>`select (select to_char(purge_day, 'YYYYMMDD') from event_stream) as purge_day,
      ${cams} as cameras`.execute(trx);
    return { purge_day: r.rows[0]?.purge_day ?? null, cameras: r.rows[0]?.cameras ?? [] };
  },

  /**
   * One multi-row INSERT for the whole batch (arrays unnested server-side); stream positions are
   * drawn in row order. The statement joins the writers itself, just before it draws them (held
   * to commit): a safe-head reader waits only for the insert and the commit, not for the rest of
   * the writer's transaction. Returns the seq of each row by id.
   */
  async insertBatch(trx: Db, orgId: string, tokenId: string | null, rows: EventInsert[]): Promise<Map<string, number>> {
    if (!rows.length) return new Map();
    const r = await sql<{
      id: string;
      seq: number;
    }>`with w as materialized (select true as held from (select pg_advisory_xact_lock_shared(${EVENT_WRITERS})) l)
      insert into events (${INSERT_COLUMNS})
      select ${insertValues(orgId, tokenId, sql`x.node_id`, sql`case when (select held from w) then nextval('event_seq') end`)}
      from ${unnestRows(rows)}
      order by x.n
      returning id, seq`.execute(trx);
    return new Map(r.rows.map((x) => [x.id, Number(x.seq)]));
  },

  /**
   * The whole write of a batch that needs nothing else in its transaction (no ext_id, no
   * attachment, no coalescing) as one statement, committed on its own: it joins the writers
   * (the shared lock is taken before any position is drawn and held to commit), keeps the rows
   * whose camera is among `cameraIds` by the one camera rule (orgCameras; their node_id from it),
   * and draws positions in row order. Four round trips (begin, lock, insert, commit) become one. Returns the inserted
   * rows with their camera's identity; a row left out named an unknown camera.
   */
  async insertAlone(
    db: Db,
    orgId: string,
    token: AloneToken,
    rows: EventInsert[],
    cameraIds: string[],
    /** more work of the statement, reading `ins` (the notification outbox's plan) */
    extra?: RawBuilder<unknown>,
  ): Promise<{
    purge_day: string | null;
    /** the token as the statement found it; null when it was refused (nothing written) */
    token: { rate_limit: number | null; last_used_at: Date | null } | null;
    inserted: Array<{ id: string; seq: number; camera: EventCamera | null }>;
  }> {
    const tokenId = token.id;
    // `held` is read by the expression that draws each position: the lock is taken first.
    const r = await sql<{
      purge_day: string | null;
      token_ok: boolean;
      rate_limit: number | null;
      last_used_at: Date | null;
      id: string | null;
      seq: number | null;
      camera_id: string | null;
      node_id: string | null;
      camera_name: string | null;
      node_name: string | null;
    }>`
      with w as materialized (
        select true as held, (select to_char(purge_day, 'YYYYMMDD') from event_stream) as purge_day
        from (select pg_advisory_xact_lock_shared(${EVENT_WRITERS})) l
      ),
      tok as materialized (${tokenCheck(token)}),
      cam as materialized (select * from json_to_recordset(${orgCameras(orgId, cameraIds)}) as c(id uuid, node_id uuid, name text, node_name text)),
      ins as (
        insert into events (${INSERT_COLUMNS})
        select ${insertValues(orgId, tokenId, sql`x.cam_node_id`, sql`case when (select held from w) then nextval('event_seq') end`)}
        -- An ordered subquery is not flattened: positions are drawn above its sort, in row order.
        from (select x.*, cam.node_id as cam_node_id from ${unnestRows(rows)} left join cam on cam.id = x.camera_id
              where (x.camera_id is null or cam.id is not null) and exists (select from tok) order by x.n) x
        returning id, seq, camera_id
      )${extra ? sql`, extra as (${extra})` : sql``}
      select w.purge_day, t.rate_limit, t.last_used_at, coalesce(t.ok, false) as token_ok,
             i.id, i.seq, i.camera_id, cam.node_id, cam.name as camera_name, cam.node_name
      from w left join tok t on true left join (ins i left join cam on cam.id = i.camera_id) on true`.execute(db);
    const first = r.rows[0];
    return {
      purge_day: first?.purge_day ?? null,
      token: first?.token_ok ? { rate_limit: first.rate_limit, last_used_at: first.last_used_at } : null,
      inserted: r.rows
        .filter((x) => x.id !== null)
        .map((x) => ({
          id: x.id!,
          seq: Number(x.seq),
          camera:
            x.camera_id === null
              ? null
              : { id: x.camera_id, node_id: x.node_id!, name: x.camera_name!, node_name: x.node_name! },
        })),
    };
  },

  /** Closes an open interval; a new stream position carries its `updated` frame. Null when it was not open. */
  async close(trx: Db, id: string, occurredAt: Date, endedAt: Date): Promise<number | null> {
    const r = await sql<{
      seq: number;
    }>`update events set ended_at = ${endedAt}, seq = nextval('event_seq'), changed = true
      where occurred_at = ${occurredAt} and id = ${id} and "interval" and ended_at is null returning seq`.execute(trx);
    return r.rows[0] ? Number(r.rows[0].seq) : null;
  },

  /**
   * Sets the star of a visible event; a change draws a new stream position (its `updated` frame).
   * Returns the new seq, or null when nothing changed (absent, invisible, or already so).
   */
  async setStarred(
    trx: Db,
    scope: CameraScope,
    id: string,
    occurredAt: Date,
    starred: boolean,
  ): Promise<number | null> {
    const r = await sql<{
      seq: number;
    }>`update events e set starred = ${starred}, seq = nextval('event_seq'), changed = true
      where e.occurred_at = ${occurredAt} and e.id = ${id} and e.starred is distinct from ${starred}
        and ${cameraVisible(scope, 'e.camera_id', 'e.org_id')}
      returning e.seq`.execute(trx);
    return r.rows[0] ? Number(r.rows[0].seq) : null;
  },

  /**
   * Closes the open system intervals of `detector` that started at `occurredAt` for a node or a
   * camera (occurred_at names one partition; the node's may be one row per organisation).
   */
  /**
   * Closes the open system intervals of a detector for a node or a camera, many keys in one
   * statement, each at its own time (one sweep batch closes the intervals of many nodes and
   * cameras: one statement instead of one per key).
   */
  async closeSystemMany(
    trx: Db,
    keys: Array<{ detector: string; occurredAt: Date; nodeId: string | null; cameraId: string | null; endedAt: Date }>,
  ): Promise<Array<{ id: string; occurred_at: Date }>> {
    if (!keys.length) return [];
    const r = await sql<{
      id: string;
      occurred_at: Date;
    }>`update events e set ended_at = greatest(k.ended_at, e.occurred_at), seq = nextval('event_seq'), changed = true
      from unnest(${keys.map((k) => k.detector)}::text[], ${keys.map((k) => k.occurredAt.toISOString())}::timestamptz[],
        ${keys.map((k) => k.nodeId)}::uuid[], ${keys.map((k) => k.cameraId)}::uuid[], ${keys.map((k) => k.endedAt.toISOString())}::timestamptz[])
        as k(detector, occurred_at, node_id, camera_id, ended_at)
      where e.occurred_at = k.occurred_at and e.detector = k.detector and e.category = 'system' and e.token_id is null
        and e."interval" and e.ended_at is null
        and (k.node_id is null or e.node_id = k.node_id) and (k.camera_id is null or e.camera_id = k.camera_id)
      returning e.id, e.occurred_at`.execute(trx);
    return r.rows;
  },

  /**
   * Closes the open node_unreachable and camera_offline intervals whose subject no longer holds
   * them (the node or camera was deleted while its interval was open): an interval is open only
   * while nodes.unreachable_since or cameras.offline_since still equals its occurred_at.
   */
  async closeOrphanedSystem(trx: Db, endedAt: Date): Promise<Array<{ id: string; occurred_at: Date }>> {
    const r = await sql<{
      id: string;
      occurred_at: Date;
    }>`update events e set ended_at = greatest(${endedAt}, e.occurred_at), seq = nextval('event_seq'), changed = true
      where e."interval" and e.ended_at is null and e.token_id is null and e.category = 'system'
        and e.detector in ('system.node_unreachable', 'system.camera_offline')
        and not exists (select 1 from nodes n where e.detector = 'system.node_unreachable' and n.id = e.node_id and n.unreachable_since = e.occurred_at)
        and not exists (select 1 from cameras c where e.detector = 'system.camera_offline' and c.id = e.camera_id and c.offline_since = e.occurred_at)
      returning e.id, e.occurred_at`.execute(trx);
    return r.rows;
  },

  async ensurePartitions(db: Db, from: Date, to: Date): Promise<number> {
    const r = await sql<{
      made: number;
    }>`select argus_ensure_event_partitions(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz) as made`.execute(
      db,
    );
    return Number(r.rows[0]?.made ?? 0);
  },
};
