import { useState } from 'react';
import { useCamera } from '../hooks/use-cameras.js';
import { ExportPanel } from '../components/export-panel.js';
import { Player } from '../components/player.js';
import { RecordingTimeline } from '../components/timeline.js';
import { Link, navigate, useLocation } from '../router.js';
import { useTimeDisplay } from '../hooks/use-time.js';
import { epochOfLocal, fieldsIn, localInputOf, momentOfSearch } from '../lib/review-time.js';

/**
 * A camera: live, its recording reviewed on the wall clock (components/timeline.tsx) with its
 * events, a moment to play from (`?t=`, also what the range form's Play sets), a recorded range
 * exported as MP4 by its node.
 */
export function CameraPage(props: { id: string }) {
  const camera = useCamera(props.id);
  const { search } = useLocation();
  // The range form's moment is in the user's zone, as the player's wall clock is.
  const zone = useTimeDisplay();
  const [start, setStart] = useState(() => localInputOf(Date.now() - 10 * 60_000, zone).slice(0, 16));
  // A range chosen on the timeline ("Export last range") fills the export form.
  const [exportRange, setExportRange] = useState<{ from: number; duration: number } | undefined>();
  if (camera.isPending) return <p className="empty">Loading…</p>;
  if (camera.isError) return <p className="empty">No such camera, or not yours to see.</p>;
  const c = camera.data;
  const exportMp4 = (r: { from: number; duration: number }) => setExportRange(r);
  return (
    <section className="camera">
      <h2>
        {c.name} <span className={`badge ${c.status}`}>{c.status}</span>
      </h2>
      <p className="meta">
        <Link to={`/feed?camera=${c.id}`}>Events of this camera</Link>
        {c.recording ? ` · recorded, kept ${c.recording.retention}` : ' · not recorded'}
      </p>
      <div className="camera-views">
        <div>
          <h3>Live</h3>
          <Player cameraId={c.id} controls />
        </div>
        {c.recording && (
          <div>
            <h3>Recording</h3>
            <RecordingTimeline cameraId={c.id} onExport={exportMp4} startAtMs={momentOfSearch(search)} />
            <h3>Play from</h3>
            <form
              className="range"
              onSubmit={(e) => {
                e.preventDefault();
                const at = epochOfLocal(start, zone);
                if (at !== null)
                  navigate(`/cameras/${encodeURIComponent(c.id)}?t=${Math.floor(at / 1000)}`, { replace: true });
              }}
            >
              <label>
                From ({fieldsIn(Date.now(), zone).zone}){' '}
                <input type="datetime-local" value={start} onChange={(e) => setStart(e.target.value)} />
              </label>
              <button type="submit">Play</button>
            </form>
            <h3>Export</h3>
            <ExportPanel camera={c} from={exportRange && exportRange.from * 1000} duration={exportRange?.duration} />
          </div>
        )}
      </div>
    </section>
  );
}
