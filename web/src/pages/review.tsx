import { useEffect, useState } from 'react';
import { ErrorBanner } from '../components/list-state.js';
import { ReviewWall } from '../components/review/review-wall.js';
import { useCameras } from '../hooks/use-cameras.js';
import { useTimeDisplay } from '../hooks/use-time.js';
import { MAX_CAMERAS, reviewPlace, searchOfPlace, type ReviewPlace } from '../lib/review-sync.js';
import { zoneName } from '../lib/text.js';
import { fromZonedInput, zonedInput } from '../lib/zoned-input.js';
import { navigate, useLocation } from '../router.js';

/** The span the review plays from its start: an hour, the timeline's shortest window. */
const SPAN_S = 3600;
/** Without a start in the address: a quarter of an hour ago, to the minute. */
const proposedStart = () => Math.floor((Date.now() - 15 * 60_000) / 60_000) * 60_000;

/**
 * Synchronised review (issue 23): up to four cameras' recordings on one clock from a start moment
 * typed in the user's zone. The cameras and the start are the address (`?cameras=a,b&from=`), so
 * a review is shared as a link; what plays is components/review/.
 */
export function ReviewPage() {
  const t = useTimeDisplay();
  const cameras = useCameras();
  const { search } = useLocation();
  const place = reviewPlace(search);
  const [proposed] = useState(proposedStart);
  const fromMs = place.from ?? proposed;
  const [start, setStart] = useState(() => zonedInput(fromMs, t.zone));
  const [refusal, setRefusal] = useState<string | null>(null);
  useEffect(() => setStart(zonedInput(fromMs, t.zone)), [fromMs, t.zone]);

  const go = (p: ReviewPlace) => navigate(`/review${searchOfPlace(p)}`, { replace: true });
  const toggle = (id: string, on: boolean) => {
    if (on && place.cameras.length >= MAX_CAMERAS) {
      setRefusal(`At most ${MAX_CAMERAS} cameras play together: clear one before adding another.`);
      return;
    }
    setRefusal(null);
    const next = on ? [...place.cameras, id] : place.cameras.filter((c) => c !== id);
    go({ cameras: next, from: fromMs });
  };

  if (cameras.isPending) return <p className="empty">Loading…</p>;
  if (cameras.isError) return <ErrorBanner what="The cameras" error={cameras.error} retry={() => cameras.refetch()} />;
  const chosen = place.cameras
    .map((id) => cameras.data.find((c) => c.id === id))
    .filter((c): c is NonNullable<typeof c> => c !== undefined);

  return (
    <section className="sync-review">
      <h2>Review</h2>
      <div className="sync-pick">
        <fieldset>
          <legend>Cameras (up to {MAX_CAMERAS})</legend>
          {cameras.data.length === 0 && <span className="meta">No camera to review.</span>}
          {cameras.data.map((c) => (
            <label key={c.id}>
              <input
                type="checkbox"
                checked={place.cameras.includes(c.id)}
                disabled={!c.recording && !place.cameras.includes(c.id)}
                onChange={(e) => toggle(c.id, e.target.checked)}
              />
              {c.name}
              {!c.recording && <span className="meta"> (not recorded)</span>}
            </label>
          ))}
        </fieldset>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const at = fromZonedInput(start, t.zone);
            if (at === null) setRefusal('Choose the moment the review starts.');
            else {
              setRefusal(null);
              go({ cameras: place.cameras, from: at });
            }
          }}
        >
          <label>
            Start ({zoneName(t)}){' '}
            <input
              type="datetime-local"
              step={1}
              name="start"
              value={start}
              onChange={(e) => setStart(e.target.value)}
            />
          </label>{' '}
          <button type="submit">Review from here</button>
        </form>
      </div>
      {refusal && (
        <p className="error" role="alert">
          {refusal}
        </p>
      )}
      {chosen.length === 0 ? (
        <p className="empty">Choose up to {MAX_CAMERAS} cameras to play their recordings side by side.</p>
      ) : (
        <ReviewWall key={fromMs} cameras={chosen} fromMs={fromMs} spanS={SPAN_S} />
      )}
    </section>
  );
}
