import type { Static } from 'typebox';
import { iso } from '../../../common/time.js';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { Principal } from '../../http/principal.js';
import { isUuid } from '../../http/list.js';
import { cameraScope } from '../../rights/camera-rights.js';
import { timeOfEventId } from '../log/events.ids.js';
import { eventJson, type EventsService, type FeedQuery } from '../feed/events.service.js';
import { navigationStore } from './navigation.store.js';
import {
  NAV_LIMITS,
  type AdjacentQuery as AdjacentQuerySchema,
  type NavigateQuery as NavigateQuerySchema,
} from './navigation.schemas.js';
import { pgCode } from '../../db/pg-errors.js';
import { CANDIDATE_LIMIT, parseSearch, type SearchQuery } from '../feed/search.js';

const QUERY_CANCELED = '57014';

/** The queries as the routes' schemas type them. */
export type AdjacentQuery = Static<typeof AdjacentQuerySchema>;
export type NavigateQuery = Static<typeof NavigateQuerySchema>;

/** `excluded_detectors`: one JSON array of exact ids (document 2: up to 64, each 1..256 bytes). */
export function parseExcludedDetectors(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw errors.badRequest('bad_excluded_detectors');
  }
  if (!Array.isArray(v) || v.length > NAV_LIMITS.excludedDetectors) throw errors.badRequest('bad_excluded_detectors');
  for (const d of v) {
    if (typeof d !== 'string' || d.length === 0 || Buffer.byteLength(d) > NAV_LIMITS.detectorBytes)
      throw errors.badRequest('bad_excluded_detectors');
  }
  return [...new Set(v as string[])];
}

/**
 * Moving through events (document 2, adjacent, navigate, reconcile). Each goes through the one
 * camera-rights rule, and navigate/reconcile through the feed's own filter, so an event of a
 * camera the caller cannot see answers exactly like one that does not exist.
 */
export class NavigationService {
  constructor(
    private readonly db: Db,
    private readonly events: EventsService,
  ) {}

  /** Under one of the feed's search slots (429 event_search_busy); a time-out is 503 event_search_deadline. */
  private async searching<T>(fn: () => Promise<T>): Promise<T> {
    const release = this.events.search.take();
    try {
      return await fn();
    } catch (err) {
      if (pgCode(err) === QUERY_CANCELED) throw errors.eventSearchDeadline();
      throw err;
    } finally {
      release();
    }
  }

  /** Previous (earlier) or next (later) event of one camera; no feed filters, debug included. */
  async adjacent(p: Principal, q: AdjacentQuery) {
    const excluded = parseExcludedDetectors(q.excluded_detectors);
    // A camera of another shape is like one outside the rights: no more events.
    if (!isUuid(q.camera)) return { event: null };
    const row = await navigationStore.adjacent(this.db, {
      scope: cameraScope(p),
      camera: q.camera.toLowerCase(),
      anchor: new Date(q.anchor),
      anchorId: q.anchor_id?.toLowerCase() ?? null,
      direction: q.direction,
      excluded,
    });
    return { event: row ? eventJson(row) : null };
  }

  /**
   * The key of the neighbouring row of the current feed result: `next` goes down the
   * newest-first feed (older), `previous` up (newer). after_ts/after_id and limit are accepted
   * as the feed's (checked) but do not bound the move: it crosses page boundaries.
   */
  async navigate(p: Principal, q: NavigateQuery) {
    const { anchor, anchor_id, direction, ...feed } = q;
    const f = this.events.filter(p, feed);
    const search = feed.q === undefined ? null : parseSearch(feed.q);
    const row = !search
      ? await navigationStore.navigate(this.db, f, new Date(anchor), anchor_id.toLowerCase(), direction)
      : await this.searching(async () => {
          const r = await navigationStore.navigateSearch(
            this.db,
            f,
            this.events.search.tsQuery(search),
            new Date(anchor),
            anchor_id.toLowerCase(),
            direction,
            CANDIDATE_LIMIT,
            this.events.search.deadlineMs,
          );
          if (r.candidates > CANDIDATE_LIMIT) throw errors.eventSearchTooBroad(CANDIDATE_LIMIT);
          return r.row;
        });
    return { event: row ? { id: row.id, occurred_at: iso(row.occurred_at) } : null };
  }

  /**
   * Exactly those candidate keys that match the current filter, as full rows, newest first.
   * A key is (id, occurred_at) and an event id carries its time: a candidate whose time is not
   * its id's names no event and is dropped like a missing one.
   */
  async reconcile(p: Principal, q: FeedQuery, candidates: Array<{ id: string; occurred_at: string }> = []) {
    if (q.after_ts !== undefined || q.after_id !== undefined)
      throw errors.badRequest('event_reconcile_cursor_not_allowed');
    if (candidates.length > NAV_LIMITS.candidates) throw errors.badRequest('event_reconcile_too_many_candidates');
    const f = this.events.filter(p, q);
    const search: SearchQuery | null = q.q === undefined ? null : parseSearch(q.q);
    const keys = new Map<string, Date>();
    for (const c of candidates) {
      const id = c.id.toLowerCase();
      const at = timeOfEventId(id);
      if (!at || at.getTime() !== new Date(c.occurred_at).getTime()) continue;
      if ((f.from && at < f.from) || (f.to && at >= f.to)) continue;
      keys.set(id, at);
    }
    const times = [...keys.values()].map((d) => d.getTime());
    if (times.length && Math.max(...times) - Math.min(...times) > NAV_LIMITS.spanMs)
      throw errors.badRequest('event_reconcile_span_too_wide');
    const list = [...keys].map(([id, at]) => ({ id, at }));
    // With q, a search slot and its time-out; the search tests only the candidates' rows, so it
    // never selects more than 512 (event_search_too_broad cannot arise here).
    const rows = !search
      ? await navigationStore.reconcile(this.db, f, list)
      : await this.searching(() =>
          navigationStore.reconcile(this.db, f, list, {
            tsq: this.events.search.tsQuery(search),
            deadlineMs: this.events.search.deadlineMs,
          }),
        );
    return { rows: rows.map(eventJson), next_ts: null, next_id: null };
  }
}
