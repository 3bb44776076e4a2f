import { ApiFailure } from '../api/failure.js';
import { errorSentence } from '../api/error-words.js';
import { BlobImage, download } from '../components/blob-image.js';
import { filtersFromSearch, severityClass, severityName } from '../lib/feed-url.js';
import { Link, navigate, useLocation } from '../router.js';
import { ErrorBoundary } from '../components/error-boundary.js';
import { playFromHere } from '../lib/review-time.js';
import { clip, eventTitle, fieldsOf, isoOf, localised, text, when } from '../lib/text.js';
import { isAdmin, useMe } from '../api/me.js';
import { useAdjacentEvent, useCloseInterval, useEventCard, useStar } from '../hooks/use-events.js';

/** A detail's value as text: nothing as a dash, the rest by `text`, cut to a readable length. */
const show = (v: unknown) => (v === null || v === undefined ? '—' : clip(text(v), 2000));

export function EventPage(props: { id: string }) {
  const { search } = useLocation();
  const me = useMe();
  const card = useEventCard(props.id);
  const star = useStar(props.id);
  const close = useCloseInterval(props.id);
  const view = filtersFromSearch(search);
  const newer = useAdjacentEvent(view, card.data?.event, 'previous');
  const older = useAdjacentEvent(view, card.data?.event, 'next');

  if (card.isPending) return <p className="empty">Loading…</p>;
  if (card.isError) {
    const code = card.error instanceof ApiFailure ? card.error.code : 'error';
    return (
      <p className="empty">
        {code === 'archived_data_expired'
          ? 'This event was purged.'
          : code === 'not_found'
            ? 'No such event, or not yours to see.'
            : errorSentence(card.error)}
      </p>
    );
  }
  const e = card.data.event;
  const details = Array.isArray(card.data.rendered?.details) ? card.data.rendered.details.map(fieldsOf) : [];
  return (
    <article className="card">
      <nav className="card-nav">
        <Link to={`/feed${search}`}>← Events</Link>
        <Step label="Newer" to={newer.data} pending={newer.isPending} search={search} />
        <Step label="Older" to={older.data} pending={older.isPending} search={search} />
      </nav>
      <ErrorBoundary what="event heading" id={e.id} resetKey={card.data}>
        <h2>
          {clip(localised(card.data.rendered?.title) || eventTitle(e), 1000)}{' '}
          <span className={`badge ${severityClass(e.severity)}`}>{severityName(e.severity)}</span>
        </h2>
        <p className="meta">
          <time dateTime={isoOf(e.occurred_at)}>{when(e.occurred_at)}</time>
          {e.camera_id && (
            <>
              {' '}
              ·{' '}
              <Link to={`/cameras/${encodeURIComponent(e.camera_id)}`}>
                {clip(text(e.camera_name), 200) || 'camera'}
              </Link>
            </>
          )}
          {e.node_name && <> · {clip(text(e.node_name), 200)}</>}
          {e.interval && <> · {e.ended_at ? `until ${when(e.ended_at)}` : 'open'}</>}
        </p>
      </ErrorBoundary>
      <div className="actions">
        <button aria-pressed={e.starred} onClick={() => star.mutate(!e.starred)}>
          {e.starred ? '★ Starred' : '☆ Star'}
        </button>
        {e.interval && !e.ended_at && isAdmin(me) && <button onClick={() => close.mutate()}>Close interval</button>}
        {close.isError && (
          <span className="error">
            {close.error instanceof ApiFailure && close.error.status === 403
              ? 'Only an administrator or its module may close it.'
              : `Not closed. ${errorSentence(close.error)}`}
          </span>
        )}
        {/* The camera's recording on the wall clock, 10 s before the event (issue 23). */}
        {e.camera_id && (
          <button onClick={() => navigate(playFromHere(e.camera_id!, e.occurred_at))}>Play from here</button>
        )}
      </div>
      {Array.isArray(e.attachments) && !!e.attachments.length && (
        <ErrorBoundary what="attachments of event" id={e.id} resetKey={card.data}>
          <div className="attachments">
            {e.attachments.map(fieldsOf).map((a) => (
              <figure key={text(a.ref)}>
                <BlobImage
                  path={`/api/v1/attachments/${text(a.ref)}/preview`}
                  alt={`preview of ${text(a.content_type)}`}
                  className="preview"
                />
                <figcaption>
                  {clip(text(a.content_type), 100)}, {(Number(a.size) / 1024).toFixed(0)} KiB{' '}
                  <button className="link" onClick={() => download(`/api/v1/attachments/${text(a.ref)}`, text(a.ref))}>
                    Download
                  </button>
                </figcaption>
              </figure>
            ))}
          </div>
        </ErrorBoundary>
      )}
      <ErrorBoundary what="details of event" id={e.id} resetKey={card.data}>
        <table className="details">
          <tbody>
            {details.map((d, i) => (
              <tr key={`${text(d.key)}-${i}`}>
                <th>{clip(text(d.label) || text(d.key), 200)}</th>
                <td>{show(d.value)}</td>
              </tr>
            ))}
            {/* Without a template the payload is shown as it came. */}
            {!details.length &&
              payloadEntries(e.payload).map(([k, v]) => (
                <tr key={k}>
                  <th>{clip(k, 200)}</th>
                  <td>{show(v)}</td>
                </tr>
              ))}
            {e.subject_ref && (
              <tr>
                <th>Subject</th>
                <td>{clip(text(e.subject_ref), 400)}</td>
              </tr>
            )}
          </tbody>
        </table>
      </ErrorBoundary>
    </article>
  );
}

/** The payload's top-level entries; a payload that is not an object shows nothing rather than failing. */
function payloadEntries(p: unknown): Array<[string, unknown]> {
  return p && typeof p === 'object' && !Array.isArray(p) ? Object.entries(p as Record<string, unknown>) : [];
}

/** Newer or Older: disabled while asked and at that end of the view (the newest event has no newer one). */
function Step(props: { label: string; to: string | null | undefined; pending: boolean; search: string }) {
  const to = props.to;
  return (
    <button
      disabled={!to}
      title={props.pending ? undefined : to ? undefined : `No ${props.label.toLowerCase()} event in this view`}
      onClick={() => to && navigate(`/events/${encodeURIComponent(to)}${props.search}`)}
    >
      {props.label}
    </button>
  );
}
