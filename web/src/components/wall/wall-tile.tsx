import { useEffect, useRef } from 'react';
import type { Camera } from '../../api/cameras.js';
import { useFullscreenElement, toggleFullscreen } from '../../hooks/use-wall.js';
import { Link } from '../../router.js';
import { Player } from '../player.js';
import { WallClock } from './wall-clock.js';

// Drawn rather than typed: a font without the glyph (⛶) would show an empty box.
const ICONS = {
  maximise: 'M4 10V4h6M20 14v6h-6M4 4l6 6M20 20l-6-6',
  restore: 'M10 4v6H4M14 20v-6h6M10 10 4 4M14 14l6 6',
  fullscreen: 'M4 9V4h5M15 4h5v5M20 15v5h-5M9 20H4v-5',
  leave: 'M9 4v5H4M20 9h-5V4M15 20v-5h5M4 15h5v5',
};
const Icon = (props: { d: string }) => (
  <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
    <path d={props.d} fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
  </svg>
);

/** The camera has a sub stream, the lighter one a tile among others plays. */
const hasSub = (c: Camera): boolean => c.profiles.some((p) => p.kind === 'SUB');

/**
 * One camera on the wall: its player, its name (cut with an ellipsis, whole in the tooltip), its
 * status and its wall clock; Maximise (in place, the main stream) and Full screen. A tile among
 * others plays the sub stream when the camera has one; maximised or in full screen, the main one.
 */
export function WallTile(props: {
  camera: Camera;
  /** granted a player by the wall's budget */
  playing: boolean;
  maximised: boolean;
  hidden: boolean;
  onVisible(id: string, visible: boolean): void;
  onMaximise(id: string | null): void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const { onVisible } = props;
  const c = props.camera;
  useEffect(() => {
    const io = new IntersectionObserver(
      (entries) =>
        onVisible(
          c.id,
          entries.some((e) => e.isIntersecting),
        ),
      {
        rootMargin: '100px',
      },
    );
    io.observe(ref.current!);
    return () => io.disconnect();
  }, [onVisible, c.id]);
  const fullscreen = useFullscreenElement() === ref.current && ref.current !== null;
  const profile = props.maximised || fullscreen || !hasSub(c) ? 'MAIN' : 'SUB';
  return (
    <div
      ref={ref}
      className={`wall-tile status-${c.status}${props.maximised ? ' maximised' : ''}`}
      data-camera={c.id}
      data-profile={profile}
      hidden={props.hidden}
    >
      <div className="wall-caption">
        <Link to={`/cameras/${c.id}`} className="wall-name" title={c.name}>
          {c.name}
        </Link>
        <span className={`badge ${c.status}`}>{c.status}</span>
        <WallClock />
        <button
          type="button"
          className="wall-icon"
          aria-label={props.maximised ? 'Back to wall' : `Maximise ${c.name}`}
          title={props.maximised ? 'Back to wall (Escape)' : `Maximise ${c.name}`}
          onClick={() => props.onMaximise(props.maximised ? null : c.id)}
        >
          <Icon d={props.maximised ? ICONS.restore : ICONS.maximise} />
        </button>
        <button
          type="button"
          className="wall-icon"
          aria-label={fullscreen ? 'Leave full screen' : `Full screen ${c.name}`}
          title={fullscreen ? 'Leave full screen (Escape)' : `Full screen ${c.name}`}
          onClick={() => toggleFullscreen(ref.current)}
        >
          <Icon d={fullscreen ? ICONS.leave : ICONS.fullscreen} />
        </button>
      </div>
      {c.status === 'unavailable' ? (
        <div className="player idle">Unavailable</div>
      ) : (
        <>
          <Player cameraId={c.id} request={{ profile }} active={props.playing} />
          {!props.playing && <div className="wall-paused">Paused</div>}
        </>
      )}
    </div>
  );
}
