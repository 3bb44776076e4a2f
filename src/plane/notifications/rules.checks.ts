import { errors } from '../errors.js';
import { isUuid } from '../http/list.js';
import { isTimeZone } from '../events/analytics/analytics.query.js';
import type { RuleMatch, Schedule } from './match.js';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isControl = (c: number) => c < 0x20 || c === 0x7f;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const MASKS_MAX = 32;
const IDS_MAX = 256;
const WINDOWS_MAX = 32;
export const CHANNELS_MAX = 8;

/** A display name: 1..128 characters, not blank, no control characters. */
export function checkName(v: unknown): string {
  if (typeof v !== 'string' || v.length > 128 || !v.trim() || [...v].some((ch) => isControl(ch.charCodeAt(0))))
    throw errors.badRequest('bad_name');
  return v;
}

export function checkBool(v: unknown): boolean {
  if (typeof v !== 'boolean') throw errors.badRequest('bad_request');
  return v;
}

const uuids = (v: unknown, max: number): string[] | null =>
  Array.isArray(v) && v.length <= max && v.every((x) => typeof x === 'string' && isUuid(x))
    ? [...new Set(v.map((x: string) => x.toLowerCase()))]
    : null;

/**
 * `match` (document 4 §13): every key optional, defaults any detector, severity 0, any camera,
 * any category, open or closed. Detector masks as templates take them: `*` only at the end.
 */
export function checkMatch(v: unknown): RuleMatch {
  const bad = () => errors.badRequest('bad_match');
  if (v === undefined || v === null) v = {};
  if (!isObj(v)) throw bad();
  const known = ['detectors', 'severity_min', 'camera_ids', 'tag_ids', 'categories', 'open_only'];
  if (Object.keys(v).some((k) => !known.includes(k))) throw bad();
  const detectors = v.detectors ?? [];
  if (
    !Array.isArray(detectors) ||
    detectors.length > MASKS_MAX ||
    !detectors.every((d) => typeof d === 'string' && d.length >= 1 && d.length <= 256 && !d.slice(0, -1).includes('*'))
  )
    throw bad();
  const severity = v.severity_min ?? 0;
  if (!Number.isInteger(severity) || (severity as number) < 0 || (severity as number) > 4) throw bad();
  const cameras = uuids(v.camera_ids ?? [], IDS_MAX);
  const tags = uuids(v.tag_ids ?? [], IDS_MAX);
  if (!cameras || !tags) throw bad();
  const categories = v.categories ?? [];
  if (!Array.isArray(categories) || !categories.every((c) => c === 'camera' || c === 'system')) throw bad();
  const open = v.open_only ?? false;
  if (typeof open !== 'boolean') throw bad();
  return {
    detectors: [...new Set(detectors as string[])],
    severity_min: severity as number,
    camera_ids: cameras,
    tag_ids: tags,
    categories: [...new Set(categories as string[])],
    open_only: open,
  };
}

/** `schedule`: null (always), or a time zone and 1..32 windows of days 1..7 (1 = Monday), [from, to) "HH:MM". */
export function checkSchedule(v: unknown): Schedule | null {
  if (v === null) return null;
  const bad = () => errors.badRequest('bad_schedule');
  if (!isObj(v) || Object.keys(v).some((k) => k !== 'timezone' && k !== 'windows')) throw bad();
  if (typeof v.timezone !== 'string' || !isTimeZone(v.timezone)) throw bad();
  if (!Array.isArray(v.windows) || v.windows.length < 1 || v.windows.length > WINDOWS_MAX) throw bad();
  const windows = v.windows.map((w: unknown) => {
    if (!isObj(w) || Object.keys(w).some((k) => !['days', 'from', 'to'].includes(k))) throw bad();
    const days = w.days;
    if (
      !Array.isArray(days) ||
      days.length < 1 ||
      !days.every((d) => Number.isInteger(d) && (d as number) >= 1 && (d as number) <= 7)
    )
      throw bad();
    if (typeof w.from !== 'string' || !HHMM.test(w.from)) throw bad();
    if (typeof w.to !== 'string' || !(HHMM.test(w.to) || w.to === '24:00') || w.to === w.from) throw bad();
    return { days: sortDays(days as number[]), from: w.from, to: w.to };
  });
  return { timezone: v.timezone, windows };
}

const sortDays = (d: number[]) => [...new Set(d)].sort((a, b) => a - b);

export function checkCooldown(v: unknown): number {
  if (!Number.isInteger(v) || (v as number) < 0 || (v as number) > 86_400) throw errors.badRequest('bad_cooldown');
  return v as number;
}

/** 1..8 distinct channel ids (their organisation is checked by the service). */
export function checkChannelIds(v: unknown): string[] {
  const ids = uuids(v, CHANNELS_MAX * 4);
  if (!ids || ids.length < 1 || ids.length > CHANNELS_MAX) throw errors.badRequest('bad_channel_ids');
  return ids;
}
