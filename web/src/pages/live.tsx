import { useCallback, useEffect, useRef, useState } from 'react';
import type { Camera } from '../api/cameras.js';
import { useCameras } from '../hooks/use-cameras.js';
import { Player } from '../components/player.js';
import { Link } from '../router.js';

/** At most this many players load at once; the others wait (document 4 §12: a player budget). */
const PLAYER_BUDGET = 16;

function Tile(props: { camera: Camera; allowed: boolean; onVisible(id: string, v: boolean): void }) {
  const ref = useRef<HTMLDivElement>(null);
  const { onVisible } = props;
  const id = props.camera.id;
  useEffect(() => {
    const io = new IntersectionObserver(
      (entries) =>
        onVisible(
          id,
          entries.some((e) => e.isIntersecting),
        ),
      { rootMargin: '100px' },
    );
    io.observe(ref.current!);
    return () => io.disconnect();
  }, [onVisible, id]);
  const c = props.camera;
  return (
    <div ref={ref} className={`tile status-${c.status}`} data-camera={c.id}>
      {props.allowed && c.status !== 'unavailable' ? (
        <Player cameraId={c.id} request={{ profile: 'MAIN' }} />
      ) : (
        <div className="player idle">{c.status === 'unavailable' ? 'Unavailable' : 'Paused'}</div>
      )}
      <div className="caption">
        <Link to={`/cameras/${c.id}`}>{c.name}</Link>
        <span className={`badge ${c.status}`}>{c.status}</span>
      </div>
    </div>
  );
}

export function LivePage() {
  const cameras = useCameras({ refetchInterval: 15_000 });
  const [visible, setVisible] = useState<Record<string, boolean>>({});
  const onVisible = useCallback(
    (id: string, v: boolean) => setVisible((s) => (s[id] === v ? s : { ...s, [id]: v })),
    [],
  );
  if (cameras.isPending) return <p className="empty">Loading cameras…</p>;
  if (cameras.isError) return <p className="error">The cameras could not be read.</p>;
  if (!cameras.data.length) return <p className="empty">No camera you may see yet.</p>;
  // The budget goes to the visible tiles in page order.
  const playing = new Set(
    cameras.data
      .filter((c) => visible[c.id])
      .slice(0, PLAYER_BUDGET)
      .map((c) => c.id),
  );
  return (
    <div className="grid">
      {cameras.data.map((c) => (
        <Tile key={c.id} camera={c} allowed={playing.has(c.id)} onVisible={onVisible} />
      ))}
    </div>
  );
}
