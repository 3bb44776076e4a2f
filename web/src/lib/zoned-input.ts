/**
 * `<input type="datetime-local">` read and written in the user's zone (document 4 §12: the zone of
 * the preferences, null for the browser's), not the browser's: an operator in Paris reviewing
 * a site in Tokyo with Tokyo chosen in the profile types Tokyo's wall clock. The input itself has
 * no zone, so the conversion is ours: the zone's offset at the instant, read from Intl.
 */

const formats = new Map<string, Intl.DateTimeFormat>();
function partsFormat(zone: string | null): Intl.DateTimeFormat {
  const key = zone ?? '';
  let f = formats.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    };
    try {
      f = new Intl.DateTimeFormat('en-US', { ...options, ...(zone ? { timeZone: zone } : {}) });
    } catch {
      // A zone this browser does not know: the browser's own, as when() does.
      f = new Intl.DateTimeFormat('en-US', options);
    }
    formats.set(key, f);
  }
  return f;
}

/** The wall clock of instant `t` (epoch ms) in `zone`: [year, month, day, hour, minute, second]. */
function wallOf(t: number, zone: string | null): number[] {
  const parts = partsFormat(zone).formatToParts(new Date(t));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return [get('year'), get('month'), get('day'), get('hour') % 24, get('minute'), get('second')];
}

/** How far `zone`'s wall clock is ahead of UTC at instant `t`, in ms. */
function offsetAt(t: number, zone: string | null): number {
  const [y, mo, d, h, mi, s] = wallOf(t, zone) as [number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s) - Math.floor(t / 1000) * 1000;
}

const two = (n: number) => String(n).padStart(2, '0');

/** The input's value ('YYYY-MM-DDTHH:MM:SS') for instant `t` in `zone`; '' for an invalid instant. */
export function zonedInput(t: number, zone: string | null): string {
  if (!Number.isFinite(t)) return '';
  const [y, mo, d, h, mi, s] = wallOf(t, zone) as [number, number, number, number, number, number];
  return `${String(y).padStart(4, '0')}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(s)}`;
}

/**
 * The instant (epoch ms) of an input's value read as `zone`'s wall clock; null when empty or
 * malformed. The offset is read twice (at the guess, then at the instant it gives), so a moment
 * near a daylight-saving change lands on the right side of it; a wall clock the change repeats
 * maps to one of its two instants.
 */
export function fromZonedInput(value: string, zone: string | null): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  if (!Number.isFinite(wall)) return null;
  const first = wall - offsetAt(wall, zone);
  return wall - offsetAt(first, zone);
}
