import { api, sessionToken } from './client.js';
import { readSse } from '../lib/sse.js';
import { searchOfFilters, type FeedFilters } from '../lib/feed-url.js';
import type { FeedRow, Key, StreamFrame } from '../lib/live-feed.js';

export interface FeedPage {
  rows: FeedRow[];
  next_ts: string | null;
  next_id: string | null;
  stream_cursor?: string;
}

export function feedPage(f: FeedFilters, after: { ts: string; id: string } | null, limit = 100): Promise<FeedPage> {
  const q = searchOfFilters(f);
  const cursor = after ? `&after_ts=${encodeURIComponent(after.ts)}&after_id=${after.id}` : '';
  return api('GET', `/api/v1/events?${q}${q ? '&' : ''}limit=${limit}${cursor}`);
}

/** The candidates among `keys` that match the view (POST /events/reconcile, at most 512 at once). */
export async function reconcile(f: FeedFilters, keys: Key[]): Promise<FeedRow[]> {
  const { after_ts: _a, after_id: _b, ...filters } = f as FeedFilters & { after_ts?: string; after_id?: string };
  const out: FeedRow[] = [];
  for (let i = 0; i < keys.length; i += 512) {
    const r = await api<FeedPage>('POST', `/api/v1/events/reconcile?${searchOfFilters(filters)}`, {
      candidates: keys.slice(i, i + 512),
    });
    out.push(...r.rows);
  }
  return out;
}

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
