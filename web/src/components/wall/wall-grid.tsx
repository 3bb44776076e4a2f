import { useCallback, useState } from 'react';
import type { Camera } from '../../api/cameras.js';
import { WallTile } from './wall-tile.js';

/** At most this many players load at once; the others wait (document 4 §12: a player budget). */
const PLAYER_BUDGET = 16;

/**
 * The tiles of one page of the wall, `side` by `side`. A tile plays only while it is on screen
 * (IntersectionObserver) and the budget goes to the visible tiles in grid order; a maximised tile
 * is the only one shown and the only one playing.
 */
export function WallGrid(props: {
  tiles: Camera[];
  side: number;
  maximised: string | null;
  onMaximise(id: string | null): void;
}) {
  const [visible, setVisible] = useState<Record<string, boolean>>({});
  const onVisible = useCallback(
    (id: string, v: boolean) => setVisible((s) => (s[id] === v ? s : { ...s, [id]: v })),
    [],
  );
  const max = props.tiles.some((c) => c.id === props.maximised) ? props.maximised : null;
  const playing = new Set(
    max
      ? [max]
      : props.tiles
          .filter((c) => visible[c.id])
          .slice(0, PLAYER_BUDGET)
          .map((c) => c.id),
  );
  const side = max ? 1 : props.side;
  return (
    <div className={`wall-grid side-${side}`} style={{ ['--side' as string]: side }}>
      {props.tiles.map((c) => (
        <WallTile
          key={c.id}
          camera={c}
          playing={playing.has(c.id)}
          maximised={c.id === max}
          hidden={max !== null && c.id !== max}
          onVisible={onVisible}
          onMaximise={props.onMaximise}
        />
      ))}
    </div>
  );
}
