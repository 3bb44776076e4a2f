import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure } from '../api/client.js';
import { BlobImage, download } from '../components/blob-image.js';
import { Player } from '../components/player.js';
import { filtersFromSearch, searchOfFilters } from '../lib/feed-url.js';
import { Link, navigate, useLocation } from '../router.js';
import { severityName } from './feed.js';
import { isAdmin, useMe } from '../api/me.js';

interface Attachment { ref: string; content_type: string; size: number }
interface Card {
  event: { id: string; occurred_at: string; ended_at: string | null; interval: boolean; detector: string; detector_title: string | null; severity: number | null;
    camera_id: string | null; camera_name: string | null; node_name: string | null; starred: boolean; subject_ref: string | null; attachments: Attachment[]; org_id: string;
    payload: Record<string, unknown> };
  rendered: { details: Array<{ key: string; label: string; value: unknown }> };
}

const show = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Seconds of recording shown before the event's moment by "play from here". */
const LEAD_S = 5;

export function EventPage(props: { id: string }) {
  const { search } = useLocation();
  const me = useMe();
  const qc = useQueryClient();
  const card = useQuery({ queryKey: ['event', props.id], queryFn: () => api<Card>('GET', `/api/v1/events/${props.id}`) });
  const [playing, setPlaying] = useState(false);
  const star = useMutation({
    mutationFn: (on: boolean) => api(on ? 'POST' : 'DELETE', `/api/v1/events/${props.id}/star`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['event', props.id] }),
  });
  const close = useMutation({
    mutationFn: () => api('PATCH', `/api/v1/events/${props.id}`, { ended_at: new Date().toISOString() }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['event', props.id] }),
  });
  const go = async (direction: 'previous' | 'next') => {
    const e = card.data!.event;
    const f = searchOfFilters(filtersFromSearch(search));
    const r = await api<{ event: { id: string } | null }>('GET', `/api/v1/events/navigate?${f}${f ? '&' : ''}anchor=${encodeURIComponent(e.occurred_at)}&anchor_id=${e.id}&direction=${direction}`);
    if (r.event) navigate(`/events/${r.event.id}${search}`);
  };

  if (card.isPending) return <p className="empty">Loading…</p>;
  if (card.isError) {
    const code = card.error instanceof ApiFailure ? card.error.code : 'error';
    return <p className="empty">{code === 'archived_data_expired' ? 'This event was purged.' : code === 'not_found' ? 'No such event, or not yours to see.' : 'The event could not be read.'}</p>;
  }
  const e = card.data.event;
  const from = Math.floor(Date.parse(e.occurred_at) / 1000) - LEAD_S;
  return (
    <article className="card">
      <nav className="card-nav">
        <Link to={`/feed${search}`}>← Events</Link>
        <button onClick={() => go('previous')}>Newer</button>
        <button onClick={() => go('next')}>Older</button>
      </nav>
      <h2>{e.detector_title || e.detector} <span className={`badge sev-${e.severity ?? 'none'}`}>{severityName(e.severity)}</span></h2>
      <p className="meta">
        <time dateTime={e.occurred_at}>{new Date(e.occurred_at).toLocaleString()}</time>
        {e.camera_id && <> · <Link to={`/cameras/${e.camera_id}`}>{e.camera_name ?? 'camera'}</Link></>}
        {e.node_name && <> · {e.node_name}</>}
        {e.interval && <> · {e.ended_at ? `until ${new Date(e.ended_at).toLocaleString()}` : 'open'}</>}
      </p>
      <div className="actions">
        <button aria-pressed={e.starred} onClick={() => star.mutate(!e.starred)}>{e.starred ? '★ Starred' : '☆ Star'}</button>
        {e.interval && !e.ended_at && isAdmin(me) && <button onClick={() => close.mutate()}>Close interval</button>}
        {close.isError && <span className="error">{close.error instanceof ApiFailure && close.error.status === 403 ? 'Only an administrator or its module may close it.' : 'Not closed.'}</span>}
        {e.camera_id && <button onClick={() => setPlaying(true)}>Play from here</button>}
      </div>
      {playing && e.camera_id && <Player cameraId={e.camera_id} controls request={{ intent: 'playback', from, duration: 120 }} />}
      {!!e.attachments.length && (
        <div className="attachments">
          {e.attachments.map((a) => (
            <figure key={a.ref}>
              <BlobImage path={`/api/v1/attachments/${a.ref}/preview`} alt={`preview of ${a.content_type}`} className="preview" />
              <figcaption>{a.content_type}, {(a.size / 1024).toFixed(0)} KiB <button className="link" onClick={() => download(`/api/v1/attachments/${a.ref}`, a.ref)}>Download</button></figcaption>
            </figure>
          ))}
        </div>
      )}
      <table className="details"><tbody>
        {card.data.rendered.details.map((d) => <tr key={d.key}><th>{d.label || d.key}</th><td>{show(d.value)}</td></tr>)}
        {/* Without a template the payload is shown as it came. */}
        {!card.data.rendered.details.length && Object.entries(e.payload ?? {}).map(([k, v]) => <tr key={k}><th>{k}</th><td>{show(v)}</td></tr>)}
        {e.subject_ref && <tr><th>Subject</th><td>{e.subject_ref}</td></tr>}
      </tbody></table>
    </article>
  );
}
