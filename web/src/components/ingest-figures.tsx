import type { IngestFigures } from '../api/cameras.js';
import { when } from '../lib/text.js';

type Stream = NonNullable<IngestFigures['main']>;

/** "25 fps · 2.0 Mbit/s" and "1920x1080 h264": the figures an operator compares between cameras. */
export function figuresLine(s: Stream): { rate: string; picture: string } {
  const fps = s.fps === null ? null : `${s.fps >= 10 ? Math.round(s.fps) : s.fps.toFixed(1)} fps`;
  const kbps = s.bitrate_kbps;
  const bitrate =
    kbps === null ? null : kbps >= 1000 ? `${(kbps / 1000).toFixed(1)} Mbit/s` : `${Math.round(kbps)} kbit/s`;
  return {
    rate: [fps, bitrate].filter(Boolean).join(' · ') || 'no figures',
    picture: [s.resolution, s.codec].filter(Boolean).join(' '),
  };
}

/**
 * A camera's ingest on the Cameras page: the main stream's frame rate and bitrate from the
 * latest sweep (GET /api/v1/cameras/ingest-figures), the picture size and codec below, the sub
 * stream's rate when it has one; the sweep's time as the title. Nothing read yet says so.
 */
export function IngestCell(props: { figures: IngestFigures | undefined; failed: boolean }) {
  const f = props.figures;
  if (!f?.main) return <span className="meta">{props.failed ? 'not read' : 'no figures yet'}</span>;
  const main = figuresLine(f.main);
  return (
    <span className="ingest" title={`Read by the sweep of ${when(f.sampled_at)}`}>
      <span>{main.rate}</span>
      {main.picture && <div className="meta">{main.picture}</div>}
      {f.sub && <div className="meta">sub: {figuresLine(f.sub).rate}</div>}
    </span>
  );
}
