/**
 * The feed's time window (document 2: `from` inclusive, `to` exclusive, RFC 3339) as the page
 * offers it: a preset (the last hour, day, week: `from` that many milliseconds before now, no
 * `to`) or two moments typed in the browser's zone. The URL keeps the moments, not the preset, so
 * a link shows the same events tomorrow.
 */
import type { FeedFilters } from './feed-url.js';

export const PRESETS = [
  { key: '1h', label: 'Last hour', ms: 3_600_000 },
  { key: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { key: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
] as const;
export type PresetKey = (typeof PRESETS)[number]['key'];

/** The window of a preset at `now` (epoch ms): `from` only, the feed runs up to now and on, live. */
export function presetWindow(key: PresetKey, now: number): Pick<FeedFilters, 'from' | 'to'> {
  const p = PRESETS.find((x) => x.key === key)!;
  return { from: new Date(now - p.ms).toISOString(), to: undefined };
}

/** `<input type="datetime-local">`'s value (the browser's zone, to the minute) for an RFC 3339 moment; '' when it does not parse. */
export function localInput(iso: string | undefined): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const d = new Date(t);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(d.getFullYear()).padStart(4, '0')}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** The RFC 3339 moment of a `datetime-local` value read in the browser's zone; undefined when empty or invalid. */
export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const t = new Date(value).getTime();
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}
