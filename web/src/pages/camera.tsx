import { useState } from 'react';
import { errorSentence } from '../api/error-words.js';
import { useCamera, usePlay } from '../hooks/use-cameras.js';
import { Player } from '../components/player.js';
import { RecordingTimeline } from '../components/timeline.js';
import { Link, navigate, useLocation } from '../router.js';
import { momentOfSearch } from '../lib/review-time.js';

const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/**
 * A camera: live, its recording reviewed on the wall clock (components/timeline.tsx) with its
 * events, a moment to play from (`?t=`, also what the range form's Play sets), a recorded range
 * exported as MP4 by its node.
 */
export function CameraPage(props: { id: string }) {
  const camera = useCamera(props.id);
  const play = usePlay(props.id);
  const { search } = useLocation();
  const [start, setStart] = useState(() => local(new Date(Date.now() - 10 * 60_000)));
  const [minutes, setMinutes] = useState(5);
  const [exportError, setExportError] = useState<string | null>(null);
  if (camera.isPending) return <p className="empty">Loading…</p>;
  if (camera.isError) return <p className="empty">No such camera, or not yours to see.</p>;
  const c = camera.data;
  const chosen = () => ({
    from: Math.floor(new Date(start).getTime() / 1000),
    duration: Math.max(1, Math.min(86_400, Math.round(minutes * 60))),
  });
  const exportMp4 = async (r: { from: number; duration: number }) => {
    setExportError(null);
    try {
      const session = await play.mutateAsync({ intent: 'playback', ...r });
      window.location.assign(
        `${session.url.replace(/index-(\d+)-(\d+)\.m3u8$/, 'export-$1-$2.mp4')}?token=${encodeURIComponent(session.token)}`,
      );
    } catch (err) {
      setExportError(errorSentence(err));
    }
  };
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
            <h3>A range</h3>
            <form
              className="range"
              onSubmit={(e) => {
                e.preventDefault();
                navigate(`/cameras/${encodeURIComponent(c.id)}?t=${chosen().from}`, { replace: true });
              }}
            >
              <label>
                From <input type="datetime-local" value={start} onChange={(e) => setStart(e.target.value)} />
              </label>
              <label>
                Minutes{' '}
                <input
                  type="number"
                  min={1}
                  max={1440}
                  value={minutes}
                  onChange={(e) => setMinutes(Number(e.target.value))}
                />
              </label>
              <button type="submit">Play</button>
              <button type="button" onClick={() => exportMp4(chosen())}>
                Export MP4
              </button>
              {exportError && <span className="error">Export refused: {exportError}</span>}
            </form>
          </div>
        )}
      </div>
    </section>
  );
}
