import { client, ok, sessionToken } from './client.js';
import { readSse } from '../lib/sse.js';
import { filtersFromSearch, searchOfFilters, type FeedFilters } from '../lib/feed-url.js';
import type { FeedRow, Key, StreamFrame } from '../lib/live-feed.js';

export const eventKeys = {
  card: (id: string) => ['event', id] as const,
  adjacent: (view: string, id: string, direction: string) => ['event-adjacent', view, id, direction] as const,
  ofCamera: (camera: string, from: number, seconds: number) => ['camera-events', camera, from, seconds] as const,
};

/** The view's filters as the query GET /events and POST /events/reconcile take (empty values left out). */
const queryOf = (f: FeedFilters) => filtersFromSearch(searchOfFilters(f));

/**
 * A page of the feed. Its rows are FeedRow, the shape the list renders whatever arrives (the
 * stream's frames carry the severity's number where a page carries its name).
 */
export async function feedPage(
  f: FeedFilters,
  after: { ts: string; id: string } | null,
  limit = 100,
): Promise<{ rows: FeedRow[]; next_ts: string | null; next_id: string | null; stream_cursor?: string }> {
  const cursor = after ? { after_ts: after.ts, after_id: after.id } : {};
  const page = await ok(client.GET('/api/v1/events', { params: { query: { ...queryOf(f), limit, ...cursor } } }));
  return { ...page, rows: page.rows as FeedRow[] };
}

/** The candidates among `keys` that match the view (POST /events/reconcile, at most 512 at once). */
export async function reconcile(f: FeedFilters, keys: Key[]): Promise<FeedRow[]> {
  const { after_ts: _a, after_id: _b, ...filters } = f as FeedFilters & { after_ts?: string; after_id?: string };
  const out: FeedRow[] = [];
  for (let i = 0; i < keys.length; i += 512) {
    const r = await ok(
      client.POST('/api/v1/events/reconcile', {
        params: { query: queryOf(filters) },
        body: { candidates: keys.slice(i, i + 512) },
      }),
    );
    out.push(...(r.rows as FeedRow[]));
  }
  return out;
}

/** An event card: the event and, when a template applies, its rendered title and details. */
export const eventCard = (id: string) => ok(client.GET('/api/v1/events/{id}', { params: { path: { id } } }));

export const star = (id: string, on: boolean) =>
  ok(
    on
      ? client.POST('/api/v1/events/{id}/star', { params: { path: { id } } })
      : client.DELETE('/api/v1/events/{id}/star', { params: { path: { id } } }),
  );

/** Closes an open interval now (an administrator or the event's module). */
export const closeInterval = (id: string) =>
  ok(
    client.PATCH('/api/v1/events/{id}', {
      params: { path: { id } },
      body: { ended_at: new Date().toISOString() },
    }),
  );

/** The event before or after `from` in the view (`previous`: newer, `next`: older); null at an end. */
export async function adjacentEvent(
  f: FeedFilters,
  from: { id: string; occurred_at: string },
  direction: 'previous' | 'next',
): Promise<string | null> {
  const r = await ok(
    client.GET('/api/v1/events/navigate', {
      params: { query: { ...queryOf(f), anchor: from.occurred_at, anchor_id: from.id, direction } },
    }),
  );
  return r.event?.id ?? null;
}

/** A camera's events from `from` (the markers of its recording timeline), at most 500. */
export const cameraEvents = (camera: string, from: Date) =>
  ok(client.GET('/api/v1/events', { params: { query: { camera, from: from.toISOString(), limit: 500 } } }));

/**
 * The live stream from `cursor` (the feed page's `stream_cursor`, then the last frame id): frames
 * to `onFrame`; `: resync-required` ends it with `resync` true (the caller re-reads the feed).
 */
export async function followEvents(
  cursor: string,
  f: FeedFilters,
  onFrame: (frame: StreamFrame) => void,
  signal: AbortSignal,
): Promise<{ resync: boolean; last: string }> {
  let last = cursor,
    resync = false;
  const org = f.org ? `&org=${f.org}` : '';
  await readSse(
    `/api/v1/events/stream?last_event_id=${encodeURIComponent(cursor)}${org}`,
    sessionToken() ?? '',
    {
      frame: (data, id) => {
        if (id) last = id;
        // A frame that is not a JSON object is skipped, not fatal to the stream (and so to the feed).
        let frame: unknown;
        try {
          frame = JSON.parse(data);
        } catch {
          return;
        }
        if (frame && typeof frame === 'object' && typeof (frame as StreamFrame).id === 'string')
          onFrame(frame as StreamFrame);
      },
      comment: (c) => {
        if (c === 'resync-required') resync = true;
      },
    },
    signal,
  );
  return { resync, last };
}
