import type { Db } from '../../db/database.js';
import { pgCode } from '../../db/pg-errors.js';
import { errors } from '../../errors.js';
import type { EventRow, FeedFilter } from './events.read.store.js';
import { searchStore, tsQuery, type SearchQuery } from './search.store.js';

/** Document 2, Limits: more candidates than this gives 422 event_search_too_broad. */
export const CANDIDATE_LIMIT = 10_000;
/** Search slots per process (document 2, Limits: 4 at the standard pool size). */
export const SEARCH_SLOTS = 4;
const QUERY_CANCELED = '57014';

/**
 * A parsed `q`: free words (each with at least two letters or digits), quoted phrases, and
 * `field:value` terms over template fields (`field:"two words"` quotes a value).
 */
export type { SearchQuery } from './search.store.js';

const FIELD_KEY = /^[a-z][a-z0-9_]{0,63}$/;
const alnum = (s: string) => (s.match(/[\p{L}\p{N}]/gu) ?? []).length;

/** Parses `q`; 400 event_search_too_short when a free word (or a phrase, or the whole query) has fewer than two letters or digits. */
export function parseSearch(q: string): SearchQuery {
  const out: SearchQuery = { words: [], phrases: [], fields: [] };
  const re = /([A-Za-z][A-Za-z0-9_]{0,63}):(?:"([^"]*)"?|(\S+))|"([^"]*)"?|(\S+)/g;
  for (const m of q.matchAll(re)) {
    if (m[1] !== undefined) {
      const key = m[1].toLowerCase();
      const value = (m[2] ?? m[3] ?? '').trim().toLowerCase();
      if (!FIELD_KEY.test(key) || !value) throw errors.badRequest('event_search_too_short');
      // A number matches however it was written at intake (50, 50.0): field values of type
      // number are stored canonically.
      const values = [value];
      if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/.test(value) && String(Number(value)) !== value)
        values.push(String(Number(value)));
      out.fields.push({ key, values });
    } else if (m[4] !== undefined) {
      if (alnum(m[4]) < 2) throw errors.badRequest('event_search_too_short');
      out.phrases.push(m[4]);
    } else {
      if (alnum(m[5]!) < 2) throw errors.badRequest('event_search_too_short');
      out.words.push(m[5]!);
    }
  }
  if (!out.words.length && !out.phrases.length && !out.fields.length) throw errors.badRequest('event_search_too_short');
  return out;
}

/**
 * Runs searches under the limits of document 2: SEARCH_SLOTS at once per process (else 429
 * event_search_busy), a statement time-out (503 event_search_deadline), and at most
 * CANDIDATE_LIMIT candidates (422 event_search_too_broad).
 */
export class EventSearch {
  private busy = 0;

  constructor(
    private readonly db: Db,
    public deadlineMs = 5_000,
    readonly slots = SEARCH_SLOTS,
  ) {}

  /** The tsquery of a parsed search, for navigation's SQL: the search SQL stays the feed's. */
  tsQuery(q: SearchQuery): ReturnType<typeof tsQuery> {
    return tsQuery(q);
  }

  /** Takes a slot now or fails with event_search_busy; release it with the returned function. */
  take(): () => void {
    if (this.busy >= this.slots) throw errors.eventSearchBusy();
    this.busy++;
    let done = false;
    return () => {
      if (!done) {
        done = true;
        this.busy--;
      }
    };
  }

  /** `db`: where the page reads (a replica in use, events/feed/read-marks.ts); absent: this search's. */
  async page(f: FeedFilter, q: SearchQuery, db: Db = this.db): Promise<EventRow[]> {
    const release = this.take();
    try {
      const r = await searchStore.page(db, f, q, CANDIDATE_LIMIT, this.deadlineMs);
      if (r.candidates > CANDIDATE_LIMIT) throw errors.eventSearchTooBroad(CANDIDATE_LIMIT);
      return r.rows;
    } catch (err) {
      if (pgCode(err) === QUERY_CANCELED) throw errors.eventSearchDeadline();
      throw err;
    } finally {
      release();
    }
  }
}
