import type { Static } from 'typebox';
import type { Clock } from '../../../common/clock.js';
import { iso } from '../../../common/time.js';
import type { Db } from '../../db/database.js';
import type { ModuleTokenCredential } from '../../module-tokens/module-tokens.types.js';
import { errors } from '../../errors.js';
import type { Principal } from '../../http/principal.js';
import { isUuid } from '../../http/list.js';
import { cameraScope } from '../../rights/camera-rights.js';
import { missingEvent } from '../retention/expired.js';
import { timeOfEventId } from '../log/events.ids.js';
import { eventsReadStore, type EventRow, type EventRowText, type FeedFilter } from './events.read.store.js';
import type { EventLog } from '../log/event-log.js';
import { LIMITS, SEVERITIES } from '../intake/intake.validate.js';
import { EventSearch, parseSearch } from './search.js';
import type { FeedQuery as FeedQuerySchema } from './events.schemas.js';
import type { TemplateRecord } from '../../templates/templates.types.js';
import { cardTemplate, renderDetails } from '../../templates/template.render.js';
import type { PageRead } from './read-marks.js';

/** The feed's filters, as the route's schema types them. */
export type FeedQuery = Static<typeof FeedQuerySchema>;

export const FEED_DEFAULT_LIMIT = 100;

/** The event as the API shows it: severity by name (stream frames carry the number). */
export function eventJson(r: EventRow) {
  return {
    id: r.id,
    occurred_at: iso(r.occurred_at),
    ended_at: iso(r.ended_at),
    org_id: r.org_id,
    camera_id: r.camera_id,
    camera_name: r.camera_name,
    node_id: r.node_id,
    node_name: r.node_name,
    detector: r.detector,
    detector_title: r.detector_title ?? null,
    category: r.category,
    severity: r.severity === null ? null : SEVERITIES[r.severity]!,
    confidence: r.confidence,
    interval: r.interval,
    template_id: r.template_id,
    subject_type: r.subject_type,
    subject_ref: r.subject_ref,
    list_values: r.list_values,
    payload: r.payload,
    attachments: r.attachments,
    starred: r.starred,
    ext_id: r.ext_id,
  };
}

const str = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));

/**
 * eventJson written as JSON text from a feed row whose times and documents are text already
 * (the same fields in the same order; documents as PostgreSQL writes jsonb).
 */
export function eventJsonText(r: EventRowText): string {
  return (
    `{"id":${str(r.id)},"occurred_at":${str(r.occurred_at)},"ended_at":${str(r.ended_at)},"org_id":${str(r.org_id)},` +
    `"camera_id":${str(r.camera_id)},"camera_name":${str(r.camera_name)},"node_id":${str(r.node_id)},"node_name":${str(r.node_name)},` +
    `"detector":${str(r.detector)},"detector_title":${r.detector_title ?? 'null'},"category":${str(r.category)},` +
    `"severity":${r.severity === null ? 'null' : str(SEVERITIES[r.severity]!)},"confidence":${r.confidence === null ? 'null' : JSON.stringify(r.confidence)},` +
    `"interval":${r.interval},"template_id":${str(r.template_id)},"subject_type":${str(r.subject_type)},"subject_ref":${str(r.subject_ref)},` +
    `"list_values":${r.list_values},"payload":${r.payload},"attachments":${r.attachments},"starred":${r.starred},"ext_id":${str(r.ext_id)}}`
  );
}

/** A severity word or 0..4; `none` only where the caller allows it. */
function severityOf(v: string): number {
  if (/^[0-4]$/.test(v)) return Number(v);
  const i = SEVERITIES.indexOf(v.toLowerCase() as (typeof SEVERITIES)[number]);
  if (i < 0) throw errors.badRequest('bad_severity');
  return i;
}

/**
 * Reading events (document 2, feed and card): every read goes through the camera-rights rule,
 * so an event of a camera the caller cannot see is absent, never forbidden.
 */
export class EventsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: EventLog,
    readonly search: EventSearch = new EventSearch(db),
    /** the template a card names (the templates domain answers) */
    private readonly templateOf: (id: string) => Promise<TemplateRecord | undefined> = async () => undefined,
    /** where feed and search pages read, with their stream cursor (a replica in use, read-marks.ts) */
    private readonly pages: { read(): Promise<PageRead> } = {
      read: async () => ({ db, cursor: await log.headCursor() }),
    },
  ) {}

  filter(p: Principal, q: FeedQuery): FeedFilter {
    const scope = cameraScope(p, q.org);
    if ((q.after_ts === undefined) !== (q.after_id === undefined)) throw errors.badRequest('bad_event_cursor');
    const from = q.from !== undefined ? new Date(q.from) : null;
    const to = q.to !== undefined ? new Date(q.to) : null;
    if (from && to && from.getTime() >= to.getTime()) throw errors.badRequest('bad_event_range');
    let severity: FeedFilter['severity'];
    if (q.severity !== undefined && q.severity.toLowerCase() === 'none') {
      if (q.severity_max !== undefined) throw errors.badRequest('bad_severity_range');
      severity = 'none';
    } else {
      const min = q.severity !== undefined ? severityOf(q.severity) : null;
      const max = q.severity_max !== undefined ? severityOf(q.severity_max) : null;
      if (min !== null && max !== null && min > max) throw errors.badRequest('bad_severity_range');
      severity = { min, max };
    }
    if (q.category !== undefined && q.category !== 'camera' && q.category !== 'system')
      throw errors.badRequest('bad_category');
    const detector =
      q.detector === undefined
        ? null
        : q.detector.endsWith('*')
          ? { value: q.detector.slice(0, -1), prefix: true }
          : { value: q.detector, prefix: false };
    const nothing = '00000000-0000-0000-0000-000000000000';
    return {
      scope,
      from,
      to,
      // An id of the wrong shape matches nothing (like an unknown one).
      camera: q.camera === undefined ? null : isUuid(q.camera) ? q.camera.toLowerCase() : nothing,
      tag: q.tag === undefined ? null : isUuid(q.tag) ? q.tag.toLowerCase() : nothing,
      detector,
      severity,
      starred: q.starred === true,
      open: q.open === true,
      category: q.category ?? null,
      after: q.after_ts !== undefined ? { ts: new Date(q.after_ts), id: q.after_id!.toLowerCase() } : null,
      limit: Math.min(500, Math.max(1, q.limit ?? FEED_DEFAULT_LIMIT)),
      now: new Date(this.clock.now()),
    };
  }

  /**
   * The feed page as JSON text (FeedPage). Without `q` the rows come with times and documents as
   * text and are spliced into the page; a search page is built from its rows.
   */
  async feedJson(p: Principal, q: FeedQuery): Promise<string> {
    if (q.q !== undefined) return JSON.stringify(await this.feed(p, q));
    const f = this.filter(p, q);
    // Taken before the query: an event committed meanwhile is then delivered by the stream.
    const { db, cursor } = await this.pages.read();
    const rows = await eventsReadStore.feedText(db, f);
    const more = rows.length > f.limit;
    const page = more ? rows.slice(0, f.limit) : rows;
    const last = page[page.length - 1];
    return (
      `{"rows":[${page.map(eventJsonText).join(',')}],"next_ts":${more ? str(last!.occurred_at) : 'null'},` +
      `"next_id":${more ? str(last!.id) : 'null'},"stream_cursor":${str(cursor)}}`
    );
  }

  /** The feed page as objects: search pages, and the reference feedJson is tested against. */
  async feed(p: Principal, q: FeedQuery) {
    const f = this.filter(p, q);
    const search = q.q === undefined ? null : parseSearch(q.q);
    // Taken before the query: an event committed meanwhile is then delivered by the stream.
    const { db, cursor } = await this.pages.read();
    const rows = search ? await this.search.page(f, search, db) : await eventsReadStore.feed(db, f);
    const more = rows.length > f.limit;
    const page = more ? rows.slice(0, f.limit) : rows;
    const last = page[page.length - 1];
    return {
      rows: page.map(eventJson),
      next_ts: more ? iso(last!.occurred_at) : null,
      next_id: more ? last!.id : null,
      stream_cursor: cursor,
    };
  }

  /**
   * Star or unstar (visible to everyone who sees the event). A change is published as an
   * `updated` frame; setting the state it already has changes nothing.
   */
  async star(p: Principal, rawId: string, starred: boolean): Promise<{ id: string; starred: boolean }> {
    const at = timeOfEventId(rawId);
    if (!at) throw errors.notFound();
    const id = rawId.toLowerCase();
    const scope = cameraScope(p);
    await this.log.write(async (w) => {
      await w.star(scope, id, at, starred);
      if (!(await eventsReadStore.get(w.trx, scope, id, at))) throw await missingEvent(w.trx, scope, id, at);
    });
    return { id, starred };
  }

  /**
   * Closes an open interval (document 2, interval states): the administrator of the event's
   * organisation (or a superadmin), or the module token that created it; other callers that see
   * the event get 403 forbidden, those that do not see it 404.
   */
  async close(
    by: { principal?: Principal; token?: ModuleTokenCredential },
    rawId: string,
    endedAtText: string,
  ): Promise<{ id: string; ended_at: string }> {
    const at = timeOfEventId(rawId);
    if (!at) throw errors.notFound();
    const id = rawId.toLowerCase();
    const endedAt = new Date(endedAtText);
    await this.log.write(async (w) => {
      const trx = w.trx;
      const key = await eventsReadStore.keyOf(trx, id, at);
      if (by.token) {
        if (!key || key.org_id !== by.token.org_id) throw errors.notFound();
        if (key.token_id !== by.token.id) throw errors.forbidden();
      } else {
        const p = by.principal!;
        if (!key) throw await missingEvent(trx, cameraScope(p), id, at);
        if (!(await eventsReadStore.get(trx, cameraScope(p), id, at))) throw errors.notFound();
        if (p.role === 'user') throw errors.forbidden();
      }
      if (!key.interval) throw errors.badRequest('not_interval');
      if (key.ended_at !== null) throw errors.alreadyClosed();
      if (endedAt.getTime() < new Date(key.occurred_at).getTime())
        throw errors.badRequest('ended_at is before occurred_at');
      if (endedAt.getTime() > this.clock.now() + LIMITS.futureMs) throw errors.badRequest('ended_at is in the future');
      if ((await w.close(id, at, endedAt)) === null) throw errors.alreadyClosed();
    });
    return { id, ended_at: iso(endedAt) };
  }

  /** The card. A malformed id is 404 without a database read. */
  async card(p: Principal, id: string) {
    const at = timeOfEventId(id);
    if (!at) throw errors.notFound();
    const row = await eventsReadStore.get(this.db, cameraScope(p), id.toLowerCase(), at);
    if (!row) throw await missingEvent(this.db, cameraScope(p), id.toLowerCase(), at);
    const t = row.template_id ? await this.templateOf(row.template_id) : undefined;
    if (!t)
      return {
        event: eventJson(row),
        template: null,
        rendered: { title: row.detector_title ?? row.detector, details: [] as unknown[] },
      };
    // The template as it is now: a title changed since intake shows on the card.
    return {
      event: eventJson(row),
      template: cardTemplate(t),
      rendered: {
        title: t.doc.title ?? row.detector_title ?? row.detector,
        details: renderDetails(t.doc, { fields: {}, payload: row.payload }),
      },
    };
  }
}
