import { useEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCameras } from '../hooks/use-cameras.js';
import {
  filtersFromSearch,
  searchOfFilters,
  SEVERITIES,
  severityClass,
  severityName,
  type FeedFilters,
} from '../lib/feed-url.js';
import { useLiveFeed } from '../lib/use-live-feed.js';
import type { FeedRow } from '../lib/live-feed.js';
import { navigate, useLocation } from '../router.js';
import { ErrorBoundary } from '../components/error-boundary.js';
import { Thumbnail } from '../components/blob-image.js';
import { TimeWindowPicker, TimeWindowShown } from '../components/feed-time.js';
import { CELL_MAX, clip, eventTitle, fieldsOf, isoOf, text, when } from '../lib/text.js';

function Filters(props: { value: FeedFilters; onChange(f: FeedFilters): void }) {
  const cameras = useCameras();
  const [q, setQ] = useState(props.value.q ?? '');
  const [detector, setDetector] = useState(props.value.detector ?? '');
  useEffect(() => {
    setQ(props.value.q ?? '');
    setDetector(props.value.detector ?? '');
  }, [props.value.q, props.value.detector]);
  const f = props.value;
  const set = (patch: Partial<FeedFilters>) => props.onChange({ ...f, ...patch });
  return (
    <form
      className="filters"
      onSubmit={(e) => {
        e.preventDefault();
        set({ q: q || undefined, detector: detector || undefined });
      }}
    >
      <input
        name="q"
        placeholder='Search: words, field:value, "a phrase"'
        value={q}
        onChange={(e) => setQ(e.target.value)}
      />
      <input
        name="detector"
        placeholder="Detector (mask with *)"
        value={detector}
        onChange={(e) => setDetector(e.target.value)}
      />
      <select
        name="camera"
        aria-label="Camera"
        value={f.camera ?? ''}
        onChange={(e) => set({ camera: e.target.value || undefined })}
      >
        <option value="">All cameras</option>
        {cameras.data?.map((c) => (
          <option key={c.id} value={c.id}>
            {clip(text(c.name), 80)}
          </option>
        ))}
      </select>
      <select
        name="severity"
        aria-label="Severity"
        value={f.severity ?? ''}
        onChange={(e) => set({ severity: e.target.value || undefined })}
      >
        <option value="">Any visible severity</option>
        {SEVERITIES.map((s) => (
          <option key={s} value={s}>
            {s === 'debug' ? 'debug and above' : `${s} and above`}
          </option>
        ))}
      </select>
      <select
        name="category"
        aria-label="Category"
        value={f.category ?? ''}
        onChange={(e) => set({ category: e.target.value || undefined })}
      >
        <option value="">Camera and system</option>
        <option value="camera">Camera</option>
        <option value="system">System</option>
      </select>
      <TimeWindowPicker from={f.from} to={f.to} onChange={(w) => set(w)} />
      <label>
        <input
          type="checkbox"
          name="starred"
          checked={!!f.starred}
          onChange={(e) => set({ starred: e.target.checked || undefined })}
        />
        Starred
      </label>
      <label>
        <input
          type="checkbox"
          name="open"
          checked={!!f.open}
          onChange={(e) => set({ open: e.target.checked || undefined })}
        />
        Open
      </label>
      <button type="submit">Apply</button>
      {searchOfFilters(f) && (
        <button type="button" className="link" onClick={() => props.onChange({})}>
          Clear
        </button>
      )}
    </form>
  );
}

/** The preview of an event's first image attachment, if it has one (a live frame carries none: its row shows no thumbnail). */
function firstImage(r: FeedRow): string | null {
  if (!Array.isArray(r.attachments)) return null;
  const a = r.attachments
    .map(fieldsOf)
    .find((x) => typeof x.content_type === 'string' && /^image\//i.test(x.content_type));
  return a && typeof a.ref === 'string' ? a.ref : null;
}

/**
 * One event of the feed: the detector first (its title, then the subject), then severity, time,
 * camera and flags; the row wears its severity's colour. Every field goes through `text`: a row
 * renders whatever shape the API sends.
 */
export function Row(props: { row: FeedRow; search: string }) {
  const r = props.row;
  const id = text(r.id);
  const what = clip(eventTitle(r) + (r.subject_ref ? ` · ${text(r.subject_ref)}` : ''));
  const image = firstImage(r);
  return (
    <a
      className={`row ${severityClass(r.severity)}`}
      href={`/events/${encodeURIComponent(id)}${props.search}`}
      data-event={id}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey) return;
        e.preventDefault();
        navigate(`/events/${encodeURIComponent(id)}${props.search}`);
      }}
    >
      {image ? (
        <Thumbnail path={`/api/v1/attachments/${encodeURIComponent(image)}/preview`} alt="" />
      ) : (
        <span className="thumb" />
      )}
      <span className="what" title={what.length >= CELL_MAX ? eventTitle(r) : what}>
        {what}
      </span>
      <span className="sev">{severityName(r.severity)}</span>
      <time dateTime={isoOf(r.occurred_at)} title={isoOf(r.occurred_at)}>
        {when(r.occurred_at)}
      </time>
      <span className="where">{clip(text(r.camera_name), 120) || (r.category === 'system' ? 'system' : '')}</span>
      <span className="flags">
        {r.starred === true ? '★' : ''}
        {r.interval === true && !r.ended_at ? ' open' : ''}
      </span>
    </a>
  );
}

/** A row's height in pixels, the same at every width (styles.css: two lines on a phone). */
const ROW_HEIGHT = 48;

export function FeedPage() {
  const { search } = useLocation();
  const filters = filtersFromSearch(search);
  const feed = useLiveFeed(filters);
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: feed.rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = v.getVirtualItems();
  const last = items[items.length - 1];
  useEffect(() => {
    if (last && last.index >= feed.rows.length - 20 && !feed.exhausted) feed.loadMore();
  }, [last, feed]);
  const qs = searchOfFilters(filters);
  return (
    <section className="feed">
      <Filters
        value={filters}
        onChange={(f) => {
          const s = searchOfFilters(f);
          navigate(`/feed${s ? `?${s}` : ''}`);
        }}
      />
      <TimeWindowShown
        from={filters.from}
        to={filters.to}
        onClear={() => {
          const s = searchOfFilters({ ...filters, from: undefined, to: undefined });
          navigate(`/feed${s ? `?${s}` : ''}`);
        }}
      />
      <div className="feed-status">
        <span className={feed.live ? 'live-dot on' : 'live-dot'}>{feed.live ? 'live' : 'connecting'}</span>
        <span>
          {feed.rows.length}
          {feed.exhausted ? '' : '+'} events
        </span>
        {feed.error && <span className="error">{feed.error}</span>}
      </div>
      <div className="feed-list" ref={scroller} data-testid="feed-list">
        {feed.loading && !feed.rows.length ? (
          <p className="empty">Loading…</p>
        ) : !feed.rows.length ? (
          <p className="empty">No event matches.</p>
        ) : (
          <div style={{ height: v.getTotalSize(), position: 'relative' }}>
            {items.map((it) => (
              <div
                key={text(feed.rows[it.index]!.id)}
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  right: 0,
                  height: it.size,
                  transform: `translateY(${it.start}px)`,
                }}
              >
                <ErrorBoundary what="event" id={text(feed.rows[it.index]!.id)} resetKey={feed.rows[it.index]} inline>
                  <Row row={feed.rows[it.index]!} search={qs ? `?${qs}` : ''} />
                </ErrorBoundary>
              </div>
            ))}
          </div>
        )}
      </div>
    </section>
  );
}
