const parts = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = parts.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    parts.set(tz, f);
  }
  return f;
}

/** The zone's offset from UTC at an instant, in minutes (Berlin in summer: +120). */
export function offsetMinutes(at: Date, tz: string): number {
  const p = Object.fromEntries(formatter(tz).formatToParts(at).map((x) => [x.type, x.value]));
  const local = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return Math.round((local - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** A bucket's start as RFC 3339 with the zone's offset at that instant: `2026-03-29T00:00:00+01:00`. */
export function bucketLabel(at: Date, tz: string): string {
  const off = offsetMinutes(at, tz);
  const local = new Date(at.getTime() + off * 60_000).toISOString().slice(0, 19);
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${local}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}
