/**
 * Text from the API made safe to render. A template's `title` and an event's `detector_title` are
 * a string or an object of localisations (document 2, document 4 §5); anything else the API may
 * hand over (null, a number, a nested object from a producer's payload) must still become a string,
 * because React refuses an object as a child and one such value would blank the whole console.
 */

/**
 * A language tag as Intl takes it, or null. A browser started under a POSIX locale reports it
 * ("en-US@posix", "en_US.UTF-8", "C"), and `new Intl.DateTimeFormat(["en-US@posix"])` throws a
 * RangeError, which blanked every page that shows a time (the npm-shipped Chromium does so).
 */
function wellFormed(tag: string): string | null {
  const t = tag.split(/[.@]/)[0]!.replace(/_/g, '-');
  try {
    return Intl.getCanonicalLocales(t)[0] ?? null;
  } catch {
    return null;
  }
}

/** The browser's preferred languages, best first (`navigator.languages`, else `navigator.language`), each well formed. */
export function browserLanguages(): readonly string[] {
  // Through globalThis: this module is also type-checked and tested outside the browser.
  const nav = (globalThis as { navigator?: { languages?: readonly string[]; language?: string } }).navigator;
  if (!nav) return [];
  const raw = Array.isArray(nav.languages) && nav.languages.length ? nav.languages : nav.language ? [nav.language] : [];
  const tags = raw.flatMap((l) => (typeof l === 'string' ? (wellFormed(l) ?? []) : []));
  return [...new Set(tags)];
}

/**
 * The text of a localised title for a reader of `languages`: the first language present (exactly,
 * then its base, `fr` for `fr-CH`), then `en`, then the first entry that is a string; '' if none.
 * Language keys compare without case (`en-GB` and `en-gb` are one language).
 */
export function localised(value: unknown, languages: readonly string[] = browserLanguages()): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) return '';
  const entries = Object.entries(value as Record<string, unknown>).filter(
    (e): e is [string, string] => typeof e[1] === 'string',
  );
  if (!entries.length) return '';
  const byKey = new Map(entries.map(([k, v]) => [k.toLowerCase(), v]));
  const wanted = [...languages, 'en'].map((l) => l.toLowerCase());
  for (const l of wanted) {
    const exact = byKey.get(l);
    if (exact !== undefined) return exact;
    const base = byKey.get(l.split('-')[0]!);
    if (base !== undefined) return base;
  }
  return entries[0]![1];
}

/**
 * Any value as one line of text: strings as they are, numbers and booleans written out, a
 * localisation object by `localised`, other objects as JSON; null and undefined as ''.
 */
export function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'object' && !Array.isArray(value)) {
    const l = localised(value);
    if (l) return l;
  }
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** The longest text a list cell shows; the rest is cut with an ellipsis (the full text stays in the card). */
/** The fields of a value the API's schema leaves open (`unknown`): an object's own, else none. */
export const fieldsOf = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export const CELL_MAX = 400;

/** `value` cut to `max` characters with an ellipsis, so a 16 KiB string does not stretch a row. */
export function clip(value: string, max = CELL_MAX): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

/** An event's heading: its detector title in the reader's language, else the detector, else a placeholder. */
export function eventTitle(e: { detector_title?: unknown; detector?: unknown }): string {
  return localised(e.detector_title) || text(e.detector) || 'event';
}

/**
 * How the console writes a time (issue 22, docs/preferences.md): in `zone` (an IANA name; null:
 * the browser's) on the 12- or 24-hour `clock`, always with the zone's short name, so that a time
 * read beside a colleague's in another zone says which one it is.
 */
export interface TimeDisplay {
  readonly zone: string | null;
  readonly clock: '12h' | '24h';
}

/** Until the user's preferences are read: the browser's zone, 24 h (the plane's defaults). */
export const BROWSER_TIME: TimeDisplay = { zone: null, clock: '24h' };

// The signed-in user's choice, set by hooks/use-time.ts whenever the preferences are read or
// saved, so that `when()` honours it in every page without each page passing it along.
let shown: TimeDisplay = BROWSER_TIME;
export const setTimeDisplay = (d: TimeDisplay): void => {
  shown = d;
};

const formats = new Map<string, Intl.DateTimeFormat>();
/** The day's parts: with the year, without it (this year's), or none (the time of day). */
type DatePart = 'year' | 'day' | false;
function formatOf(d: TimeDisplay, date: DatePart): Intl.DateTimeFormat {
  const key = `${d.zone ?? ''}|${d.clock}|${date}`;
  let f = formats.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      ...(date ? { month: 'short', day: 'numeric' } : {}),
      ...(date === 'year' ? { year: 'numeric' } : {}),
      hour: d.clock === '12h' ? 'numeric' : '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: d.clock === '12h' ? 'h12' : 'h23',
      timeZoneName: 'short',
      ...(d.zone ? { timeZone: d.zone } : {}),
    };
    try {
      f = new Intl.DateTimeFormat([...browserLanguages()], options);
    } catch {
      // A zone this browser does not know (the plane checked it against its own Intl): the browser's.
      const { timeZone: _unknown, ...browser } = options;
      f = new Intl.DateTimeFormat([...browserLanguages()], browser);
    }
    formats.set(key, f);
  }
  return f;
}

/** The year of the instant `t` in `d`'s zone. */
const yearIn = (d: TimeDisplay, t: number) => {
  const key = `${d.zone ?? ''}|year`;
  let f = formats.get(key);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en', { year: 'numeric', ...(d.zone ? { timeZone: d.zone } : {}) });
    } catch {
      f = new Intl.DateTimeFormat('en', { year: 'numeric' });
    }
    formats.set(key, f);
  }
  return f.format(new Date(t));
};

/**
 * An ISO timestamp (or epoch milliseconds) for display, with its zone ("Nov 26, 2:05:03 PM
 * GMT+9"; the year written only when it is not this year's, so that a list's time column keeps
 * the zone in view); `date: false` for the time of day only. An invalid or missing one as '—'
 * rather than "Invalid Date" or a throw.
 */
export function when(iso: unknown, d: TimeDisplay = shown, date = true): string {
  const t = typeof iso === 'string' ? Date.parse(iso) : typeof iso === 'number' ? iso : Number.NaN;
  if (!Number.isFinite(t)) return '—';
  const part: DatePart = !date ? false : yearIn(d, t) === yearIn(d, Date.now()) ? 'day' : 'year';
  return formatOf(d, part).format(new Date(t));
}

/**
 * The time of day of the instant `t` (epoch ms) in the user's zone and clock, without the zone's
 * name: a chart's tick or a line of a log, whose heading says the zone ("14:05", "2:05:03 PM").
 */
export function timeOfDay(t: number, seconds = true, d: TimeDisplay = shown): string {
  if (!Number.isFinite(t)) return '—';
  const key = `${d.zone ?? ''}|${d.clock}|tod|${seconds}`;
  let f = formats.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      hour: d.clock === '12h' ? 'numeric' : '2-digit',
      minute: '2-digit',
      ...(seconds ? { second: '2-digit' } : {}),
      hourCycle: d.clock === '12h' ? 'h12' : 'h23',
      ...(d.zone ? { timeZone: d.zone } : {}),
    };
    try {
      f = new Intl.DateTimeFormat([...browserLanguages()], options);
    } catch {
      const { timeZone: _unknown, ...browser } = options;
      f = new Intl.DateTimeFormat([...browserLanguages()], browser);
    }
    formats.set(key, f);
  }
  return f.format(new Date(t));
}

/** The short name of `d`'s zone at the instant `at` ("CET", "GMT+1", "EDT"). */
export function zoneName(d: TimeDisplay = shown, at = Date.now()): string {
  return (
    formatOf(d, false)
      .formatToParts(new Date(at))
      .find((p) => p.type === 'timeZoneName')?.value ?? ''
  );
}

/** An ISO timestamp's canonical form for a `title` tooltip; '' when it does not parse. */
export function isoOf(iso: unknown): string {
  if (typeof iso !== 'string') return '';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? '' : new Date(t).toISOString();
}
