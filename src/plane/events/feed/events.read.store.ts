import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import { cameraVisible, type CameraScope } from '../../rights/camera-rights.js';

/** A stored event as the feed and the card read it (names joined from the inventory). */
export interface EventRow {
  id: string;
  seq: number;
  occurred_at: Date;
  ended_at: Date | null;
  org_id: string;
  camera_id: string | null;
  camera_name: string | null;
  node_id: string | null;
  node_name: string | null;
  token_id: string | null;
  category: string;
  detector: string;
  detector_title: unknown;
  severity: number | null;
  confidence: number | null;
  interval: boolean;
  template_id: string | null;
  subject_type: string | null;
  subject_ref: string | null;
  ext_id: string | null;
  list_values: unknown[];
  payload: Record<string, unknown>;
  attachments: unknown[];
  starred: boolean;
}

export interface FeedFilter {
  scope: CameraScope;
  from: Date | null;
  to: Date | null;
  camera: string | null;
  tag: string | null;
  /** exact id, or a prefix when `prefix` */
  detector: { value: string; prefix: boolean } | null;
  /** inclusive bounds; `none` selects events without severity */
  severity: { min: number | null; max: number | null } | 'none';
  starred: boolean;
  open: boolean;
  category: string | null;
  after: { ts: Date; id: string } | null;
  limit: number;
  /** now by the plane's clock: a page without an upper edge is probed from here */
  now: Date;
}

const SELECT = sql`e.id, e.seq, e.occurred_at, e.ended_at, e.org_id, e.camera_id, c.name as camera_name, e.node_id, n.name as node_name,
  e.token_id, e.category, e.detector, e.detector_title, e.severity, e.confidence, e."interval", e.template_id, e.subject_type,
  e.subject_ref, e.ext_id, e.list_values, e.payload, e.attachments, e.starred`;
const FROM = sql`events e left join cameras c on c.id = e.camera_id left join nodes n on n.id = e.node_id`;

/**
 * A feed row as the page writes it: times already in the API's form (Date.toISOString), JSON
 * documents as their text, so the plane splices them into the page instead of parsing and
 * re-serialising them (most of its CPU per 100-row page).
 */
export interface EventRowText {
  id: string;
  occurred_at: string;
  ended_at: string | null;
  org_id: string;
  camera_id: string | null;
  camera_name: string | null;
  node_id: string | null;
  node_name: string | null;
  detector: string;
  detector_title: string | null;
  category: string;
  severity: number | null;
  confidence: number | null;
  interval: boolean;
  template_id: string | null;
  subject_type: string | null;
  subject_ref: string | null;
  list_values: string;
  payload: string;
  attachments: string;
  starred: boolean;
  ext_id: string | null;
}

const isoUtc = (col: string) => sql`to_char(${sql.ref(col)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const TEXT_SELECT = sql`e.id, ${isoUtc('e.occurred_at')} as occurred_at, ${isoUtc('e.ended_at')} as ended_at, e.org_id, e.camera_id,
  c.name as camera_name, e.node_id, n.name as node_name, e.detector, e.detector_title::text as detector_title, e.category, e.severity,
  e.confidence, e."interval", e.template_id, e.subject_type, e.subject_ref, e.list_values::text as list_values, e.payload::text as payload,
  e.attachments::text as attachments, e.starred, e.ext_id`;

/** The first window a feed page is looked for in (see feed). */
const FEED_PROBE_MS = 86_400_000;

const likePrefix = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`) + '%';

function where(f: FeedFilter): RawBuilder<SqlBool> {
  const parts: RawBuilder<unknown>[] = [cameraVisible(f.scope, 'e.camera_id', 'e.org_id')];
  if (f.from) parts.push(sql`e.occurred_at >= ${f.from}`);
  if (f.to) parts.push(sql`e.occurred_at < ${f.to}`);
  if (f.camera) parts.push(sql`e.camera_id = ${f.camera}`);
  if (f.tag) parts.push(sql`e.camera_id in (select ct.camera_id from camera_tags ct where ct.tag_id = ${f.tag})`);
  if (f.detector)
    parts.push(
      f.detector.prefix ? sql`e.detector like ${likePrefix(f.detector.value)}` : sql`e.detector = ${f.detector.value}`,
    );
  if (f.severity === 'none') parts.push(sql`e.severity is null`);
  else {
    if (f.severity.min !== null) parts.push(sql`e.severity >= ${f.severity.min}`);
    if (f.severity.max !== null) parts.push(sql`e.severity <= ${f.severity.max}`);
    // Debug (0) only when a bound reaches zero; without bounds events without severity stay.
    if (f.severity.min === null && f.severity.max === null) parts.push(sql`e.severity is distinct from 0`);
    else if ((f.severity.min ?? 1) > 0 && (f.severity.max ?? 1) > 0) parts.push(sql`e.severity > 0`);
  }
  if (f.starred) parts.push(sql`e.starred`);
  if (f.open) parts.push(sql`e."interval" and e.ended_at is null`);
  if (f.category) parts.push(sql`e.category = ${f.category}`);
  // The plain bound lets the planner prune newer day partitions; the row comparison cannot.
  if (f.after)
    parts.push(sql`e.occurred_at <= ${f.after.ts} and (e.occurred_at, e.id) < (${f.after.ts}, ${f.after.id})`);
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

async function feedRows<R>(db: Db, f: FeedFilter, select: RawBuilder<unknown>): Promise<R[]> {
  const run = async (from: Date | null) =>
    (
      await sql<R>`select ${select} from ${FROM} where ${where({ ...f, from })}
    order by e.occurred_at desc, e.id desc limit ${f.limit + 1}`.execute(db)
    ).rows;
  // Planning a query over every day partition (~36) cost more than running it (3-8 ms against
  // under 1 ms at 10M events); a lower time bound prunes them at plan time. So the day below
  // the page's upper edge is asked first: when it holds a whole page no older row can belong
  // to it; otherwise the page is asked again without the probe.
  const top = f.after?.ts ?? f.to ?? f.now;
  const probe = new Date(top.getTime() - FEED_PROBE_MS);
  if (!f.from || f.from < probe) {
    const rows = await run(probe);
    if (rows.length > f.limit) return rows;
  }
  return run(f.from);
}

/** The SQL of event reads (feed, card). */
export const eventsReadStore = {
  /** Newest first, limit + 1 rows (the extra one says another page exists). */
  async feed(db: Db, f: FeedFilter): Promise<EventRow[]> {
    return feedRows<EventRow>(db, f, SELECT);
  },

  /** The rows of `feed` with times and JSON documents as text (see EventRowText). */
  async feedText(db: Db, f: FeedFilter): Promise<EventRowText[]> {
    return feedRows<EventRowText>(db, f, TEXT_SELECT);
  },

  /** What deciding a change needs of an event, whoever asks (no visibility rule applied). */
  async keyOf(
    db: Db,
    id: string,
    occurredAt: Date,
  ): Promise<
    { org_id: string; token_id: string | null; interval: boolean; ended_at: Date | null; occurred_at: Date } | undefined
  > {
    return db
      .selectFrom('events')
      .select(['org_id', 'token_id', 'interval', 'ended_at', 'occurred_at'])
      .where('occurred_at', '=', occurredAt)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /**
   * One event by its key; occurred_at comes from the id, so one partition is read. The time is
   * sent as text and cast in SQL: that cast is not immutable, so the day is pruned when the
   * statement starts rather than when it is planned, and the prepared statement keeps one
   * generic plan. As a timestamptz parameter every card was planned afresh over all day
   * partitions: 0.20 ms of server CPU per card against 0.07 ms (10M events, ~36 days).
   */
  async get(db: Db, scope: CameraScope, id: string, occurredAt: Date): Promise<EventRow | undefined> {
    const r = await sql<EventRow>`select ${SELECT} from ${FROM}
      where e.occurred_at = ${occurredAt.toISOString()}::text::timestamptz and e.id = ${id}
        and ${cameraVisible(scope, 'e.camera_id', 'e.org_id')}`.execute(db);
    return r.rows[0];
  },
};

// Navigation (adjacent, navigate, reconcile) reads the same rows under the same feed conditions.
export { SELECT as EVENT_SELECT, where as feedWhere };
