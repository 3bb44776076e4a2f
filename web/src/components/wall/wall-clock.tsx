import { useTimeDisplay } from '../../hooks/use-time.js';
import { useNow } from '../../hooks/use-wall.js';

/** A tile's wall clock: the time now, ticking, in the user's zone and 12/24 h clock (the profile's). */
export function WallClock() {
  const at = useNow();
  const t = useTimeDisplay();
  return (
    <time className="wall-clock" dateTime={new Date(at).toISOString()}>
      {t.when(at, false)}
    </time>
  );
}
