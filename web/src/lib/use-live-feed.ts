import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { feedPage, followEvents, reconcile } from '../api/events.js';
import { errorSentence } from '../api/error-words.js';
import { applyFrame, mergePage, type FeedRow, type Key } from './live-feed.js';
import { filtersFromSearch, searchOfFilters, type FeedFilters } from './feed-url.js';

export interface LiveFeed {
  rows: FeedRow[];
  loading: boolean;
  error: string | null;
  exhausted: boolean;
  live: boolean;
  loadMore(): void;
}

/**
 * The feed of `filters`, kept live: the first page, then the event stream from the page's
 * `stream_cursor` (taken before the page was read, so nothing written meanwhile is lost);
 * frames are applied as document 2 says (live-feed.ts), candidates the client cannot judge are
 * asked for in batches with POST /events/reconcile; `: resync-required` or a refused cursor
 * re-reads the first page and follows from its new cursor; an ended stream (session, midnight)
 * is resumed from the last frame.
 */
export function useLiveFeed(filters: FeedFilters): LiveFeed {
  // The view is its query string: a new filters object with the same content is the same view.
  const key = searchOfFilters(filters);
  const view = useMemo(() => filtersFromSearch(key), [key]);
  const [rows, setRows] = useState<FeedRow[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState(false);
  const next = useRef<{ ts: string; id: string } | null>(null);
  const [exhausted, setExhausted] = useState(false);
  const paging = useRef(false);

  useEffect(() => {
    const f = view;
    const stop = new AbortController();
    let pending: Key[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = async () => {
      timer = null;
      const keys = pending;
      pending = [];
      if (!keys.length || stop.signal.aborted) return;
      const found = await reconcile(f, keys).catch(() => []);
      if (!stop.signal.aborted) setRows((r) => mergePage(r, found));
    };
    (async () => {
      for (let attempt = 0; !stop.signal.aborted; attempt++) {
        try {
          setLoading(true);
          const page = await feedPage(f, null);
          if (stop.signal.aborted) return;
          setRows(page.rows);
          next.current = page.next_ts && page.next_id ? { ts: page.next_ts, id: page.next_id } : null;
          setExhausted(!next.current);
          setLoading(false);
          setError(null);
          let cursor = page.stream_cursor ?? 'g:0';
          for (;;) {
            setLive(true);
            const r = await followEvents(
              cursor,
              f,
              (frame) => {
                setRows((current) => {
                  const out = applyFrame(current, frame, f);
                  if (out.reconcile) {
                    pending.push(out.reconcile);
                    timer ??= setTimeout(flush, 150);
                  }
                  return out.rows;
                });
              },
              stop.signal,
            );
            setLive(false);
            if (r.resync || stop.signal.aborted) break;
            cursor = r.last;
            await new Promise((res) => setTimeout(res, 500));
          }
          attempt = 0;
        } catch (err) {
          if (stop.signal.aborted) return;
          setLive(false);
          setLoading(false);
          setError(errorSentence(err));
          await new Promise((res) => setTimeout(res, Math.min(10_000, 500 * 2 ** attempt)));
        }
      }
    })();
    return () => {
      stop.abort();
      if (timer) clearTimeout(timer);
    };
  }, [view]);

  const loadMore = useCallback(() => {
    if (paging.current || !next.current) return;
    paging.current = true;
    // Older pages are larger: scrolling far back costs fewer round trips.
    feedPage(view, next.current, 500)
      .then(
        (page) => {
          setRows((r) => mergePage(r, page.rows));
          next.current = page.next_ts && page.next_id ? { ts: page.next_ts, id: page.next_id } : null;
          setExhausted(!next.current);
        },
        (err: unknown) => setError(errorSentence(err)),
      )
      .finally(() => {
        paging.current = false;
      });
  }, [view]);

  return { rows, loading, error, exhausted, live, loadMore };
}
