import type { TimeDisplay } from './text.js';
import { fromZonedInput, zonedInput } from './zoned-input.js';

/**
 * Recording time as the camera's wall clock (issue 23, spec 4 section 14): a date, a time of day
 * and the zone's short name ("2026-11-26 14:03:27 CET"), in the zone and on the clock the user
 * chose (cameras have no zone of their own: the reader's choice is the one place a zone is set).
 * The date is written year first so that a still of the player reads the same in every language.
 */
const parts = new Map<string, Intl.DateTimeFormat>();

function formatter(d: TimeDisplay): Intl.DateTimeFormat {
  const key = `${d.zone ?? ''}|${d.clock}`;
  let f = parts.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: d.clock === '12h' ? 'h12' : 'h23',
      timeZoneName: 'short',
      ...(d.zone ? { timeZone: d.zone } : {}),
    };
    try {
      f = new Intl.DateTimeFormat('en-US', options);
    } catch {
      // A zone this browser does not know: the browser's own, still named.
      const { timeZone: _unknown, ...browser } = options;
      f = new Intl.DateTimeFormat('en-US', browser);
    }
    parts.set(key, f);
  }
  return f;
}

/** The fields of an instant in `d`'s zone. */
export function fieldsIn(ms: number, d: TimeDisplay) {
  const got: Record<string, string> = {};
  for (const p of formatter(d).formatToParts(new Date(ms))) got[p.type] = p.value;
  return {
    date: `${got.year}-${got.month}-${got.day}`,
    hour: Number(got.hour),
    time: `${got.hour}:${got.minute}:${got.second}`,
    dayPeriod: got.dayPeriod ?? '',
    zone: got.timeZoneName ?? '',
  };
}

/** "2026-11-26 14:03:27 CET", or "2026-11-26 02:03:27 PM CET" on the 12-hour clock; '—' for no time. */
export function wallClock(ms: number | null | undefined, d: TimeDisplay): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const f = fieldsIn(ms, d);
  return [f.date, f.time, f.dayPeriod, f.zone].filter(Boolean).join(' ');
}

/** A short label for the timeline's scale: the time of day, with the date when the span is over a day. */
export function scaleLabel(ms: number, spanMs: number, d: TimeDisplay): string {
  const f = fieldsIn(ms, d);
  const hm = f.time.slice(0, spanMs <= 15 * 60_000 ? 8 : 5) + (f.dayPeriod ? ` ${f.dayPeriod}` : '');
  return spanMs > 86_400_000 ? `${f.date.slice(5)} ${hm}` : hm;
}

/**
 * The value of an `<input type="datetime-local" step="1">` showing `ms` in `d`'s zone, and the
 * instant such a value names (null when it does not parse): the one conversion of zoned-input.ts,
 * with the reader's display settings.
 */
export const localInputOf = (ms: number, d: TimeDisplay): string => zonedInput(ms, d.zone);
export const epochOfLocal = (value: string, d: TimeDisplay): number | null => fromZonedInput(value, d.zone);

/** Seconds of recording shown before an event by "Play from here". */
export const PLAY_LEAD_S = 10;

/**
 * `?t=<epoch secs>` of the camera page: the moment its recording opens at ("Play from here" of an
 * event leads there `PLAY_LEAD_S` before the event); none, or one that is not a time: null (the newest moment).
 */
export function momentOfSearch(search: string): number | null {
  const t = new URLSearchParams(search).get('t');
  return t !== null && /^[0-9]{1,11}$/.test(t) ? Number(t) * 1000 : null;
}

/** The camera page's address that plays its recording from `PLAY_LEAD_S` before `occurredAt`. */
export function playFromHere(cameraId: string, occurredAt: string | number): string {
  const ms = typeof occurredAt === 'number' ? occurredAt : Date.parse(occurredAt);
  return `/cameras/${encodeURIComponent(cameraId)}?t=${Math.floor(ms / 1000) - PLAY_LEAD_S}`;
}
