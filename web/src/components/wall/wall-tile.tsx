import { useEffect, useRef } from 'react';
import type { Camera } from '../../api/cameras.js';
import { useFullscreenElement, toggleFullscreen } from '../../hooks/use-wall.js';
import { Link } from '../../router.js';
import { Player } from '../player.js';
import { WallClock } from './wall-clock.js';

/** The camera has a sub stream, the lighter one a tile among others plays. */
export const hasSub = (c: Camera): boolean => c.profiles.some((p) => p.kind === 'SUB');

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
          {props.maximised ? '⤡' : '⤢'}
        </button>
        <button
          type="button"
          className="wall-icon"
          aria-label={fullscreen ? 'Leave full screen' : `Full screen ${c.name}`}
          title={fullscreen ? 'Leave full screen (Escape)' : `Full screen ${c.name}`}
          onClick={() => toggleFullscreen(ref.current)}
        >
          ⛶
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
