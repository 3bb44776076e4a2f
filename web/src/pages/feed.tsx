import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { allCameras } from '../api/cameras.js';
import { filtersFromSearch, searchOfFilters, type FeedFilters } from '../lib/feed-url.js';
import { useLiveFeed } from '../lib/use-live-feed.js';
import type { FeedRow } from '../lib/live-feed.js';
import { navigate, useLocation } from '../router.js';

const SEVERITY = ['debug', 'info', 'warning', 'error', 'critical'];
export const severityName = (s: number | null) => (s === null ? '—' : SEVERITY[s] ?? String(s));

function Filters(props: { value: FeedFilters; onChange(f: FeedFilters): void }) {
  const cameras = useQuery({ queryKey: ['cameras'], queryFn: allCameras });
  const [q, setQ] = useState(props.value.q ?? '');
  const [detector, setDetector] = useState(props.value.detector ?? '');
  useEffect(() => { setQ(props.value.q ?? ''); setDetector(props.value.detector ?? ''); }, [props.value.q, props.value.detector]);
  const f = props.value;
  const set = (patch: Partial<FeedFilters>) => props.onChange({ ...f, ...patch });
  return (
    <form className="filters" onSubmit={(e) => { e.preventDefault(); set({ q: q || undefined, detector: detector || undefined }); }}>
      <input name="q" placeholder="Search: words, field:value, &quot;a phrase&quot;" value={q} onChange={(e) => setQ(e.target.value)} />
      <input name="detector" placeholder="Detector (mask with *)" value={detector} onChange={(e) => setDetector(e.target.value)} />
      <select name="camera" value={f.camera ?? ''} onChange={(e) => set({ camera: e.target.value || undefined })}>
        <option value="">All cameras</option>
        {cameras.data?.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
      </select>
      <select name="severity" value={f.severity ?? ''} onChange={(e) => set({ severity: e.target.value || undefined })}>
        <option value="">Any visible severity</option>
        {SEVERITY.map((s) => <option key={s} value={s}>{s === 'debug' ? 'debug and above' : `${s} and above`}</option>)}
      </select>
      <select name="category" value={f.category ?? ''} onChange={(e) => set({ category: e.target.value || undefined })}>
        <option value="">Camera and system</option><option value="camera">Camera</option><option value="system">System</option>
      </select>
      <label><input type="checkbox" name="starred" checked={!!f.starred} onChange={(e) => set({ starred: e.target.checked || undefined })} />Starred</label>
      <label><input type="checkbox" name="open" checked={!!f.open} onChange={(e) => set({ open: e.target.checked || undefined })} />Open</label>
      <button type="submit">Apply</button>
      {searchOfFilters(f) && <button type="button" className="link" onClick={() => props.onChange({})}>Clear</button>}
    </form>
  );
}

function Row(props: { row: FeedRow; search: string }) {
  const r = props.row;
  const t = new Date(r.occurred_at);
  return (
    <a className={`row sev-${r.severity ?? 'none'}`} href={`/events/${r.id}${props.search}`} data-event={r.id}
      onClick={(e) => { if (e.metaKey || e.ctrlKey) return; e.preventDefault(); navigate(`/events/${r.id}${props.search}`); }}>
      <time dateTime={r.occurred_at} title={t.toISOString()}>{t.toLocaleString()}</time>
      <span className="sev">{severityName(r.severity)}</span>
      <span className="what">{r.detector_title || r.detector}{r.subject_ref ? ` · ${r.subject_ref}` : ''}</span>
      <span className="where">{r.camera_name ?? (r.category === 'system' ? 'system' : '')}</span>
      <span className="flags">{r.starred ? '★' : ''}{r.interval && !r.ended_at ? ' open' : ''}</span>
    </a>
  );
}

export function FeedPage() {
  const { search } = useLocation();
  const filters = filtersFromSearch(search);
  const feed = useLiveFeed(filters);
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: feed.rows.length, getScrollElement: () => scroller.current, estimateSize: () => 44, overscan: 12 });
  const items = v.getVirtualItems();
  const last = items[items.length - 1];
  useEffect(() => { if (last && last.index >= feed.rows.length - 20 && !feed.exhausted) feed.loadMore(); }, [last, feed]);
  const qs = searchOfFilters(filters);
  return (
    <section className="feed">
      <Filters value={filters} onChange={(f) => { const s = searchOfFilters(f); navigate(`/feed${s ? `?${s}` : ''}`); }} />
      <div className="feed-status">
        <span className={feed.live ? 'live-dot on' : 'live-dot'}>{feed.live ? 'live' : 'connecting'}</span>
        <span>{feed.rows.length}{feed.exhausted ? '' : '+'} events</span>
        {feed.error && <span className="error">{feed.error}</span>}
      </div>
      <div className="feed-list" ref={scroller} data-testid="feed-list">
        {feed.loading && !feed.rows.length ? <p className="empty">Loading…</p> : !feed.rows.length ? <p className="empty">No event matches.</p> : (
          <div style={{ height: v.getTotalSize(), position: 'relative' }}>
            {items.map((it) => (
              <div key={feed.rows[it.index]!.id} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: it.size, transform: `translateY(${it.start}px)` }}>
                <Row row={feed.rows[it.index]!} search={qs ? `?${qs}` : ''} />
              </div>
            ))}
          </div>
        )}
      </div>
    </section>
  );
}
