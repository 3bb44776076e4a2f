import { createHash } from 'node:crypto';

/**
 * Which events a rule sends (document 4 §13), as pure functions: the outbox calls them inside the
 * event's transaction with the cooldown state it locked, and the property test holds them equal
 * to a naive model. Nothing here reads a clock or the database.
 */
export interface RuleMatch {
  /** Detector masks as templates take them: exact, or a prefix ending in `*`; empty: any detector. */
  detectors: string[];
  /** 0..4; an event without severity counts as 0. */
  severity_min: number;
  /** With tag_ids: the cameras named, and the cameras carrying any tag named (empty both: any camera, and camera-less events). */
  camera_ids: string[];
  tag_ids: string[];
  /** empty: any category */
  categories: string[];
  /** only interval events still open */
  open_only: boolean;
}

export interface ScheduleWindow {
  /** 1 = Monday .. 7 = Sunday, of the day the window starts */
  days: number[];
  /** "HH:MM" in the rule's zone; [from, to), `to` "24:00" is the end of the day, `to` before `from` runs past midnight */
  from: string;
  to: string;
}
export interface Schedule {
  timezone: string;
  windows: ScheduleWindow[];
}

export interface RuleSpec {
  id: string;
  match: RuleMatch;
  schedule: Schedule | null;
  cooldown_secs: number;
  channel_ids: string[];
}

/** What a rule looks at in an event. */
export interface EventFacts {
  id: string;
  /** epoch ms */
  occurred_at: number;
  camera_id: string | null;
  /** the camera's tags when the event was written */
  tags: readonly string[];
  detector: string;
  severity: number | null;
  category: string;
  /** an interval event not yet ended */
  open: boolean;
}

export interface CooldownState {
  /** epoch ms of the newest event sent for the key, null: none yet */
  last_sent_at: number | null;
  /** events of the key that the cooldown kept back */
  suppressed: number;
}

export interface PlannedDelivery {
  event_id: string;
  rule_id: string;
  channel_id: string;
}

/** The camera part of a cooldown key for camera-less events. */
export const NO_CAMERA = '00000000-0000-0000-0000-000000000000';

export const cooldownKey = (ruleId: string, cameraId: string | null) => `${ruleId}/${cameraId ?? NO_CAMERA}`;

/** Stable across retries and plane processes: the receiver's key to drop a duplicate. */
export function dedupeKey(eventId: string, ruleId: string, channelId: string): string {
  return createHash('sha256').update(`${eventId}:${ruleId}:${channelId}`).digest('hex');
}

export function detectorMatches(masks: readonly string[], detector: string): boolean {
  if (!masks.length) return true;
  for (const m of masks) {
    if (m.endsWith('*') ? detector.startsWith(m.slice(0, -1)) : detector === m) return true;
  }
  return false;
}

// One formatter per zone: making one costs far more than using it.
const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** The wall clock of `zone` at `at`: the day of the week (1 = Monday) and the minute of the day. */
export function wallClock(zone: string, at: number): { day: number; minute: number } {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(zone, f);
  }
  let day = 0;
  let hour = 0;
  let minute = 0;
  for (const p of f.formatToParts(at)) {
    if (p.type === 'weekday') day = WEEKDAYS[p.value] ?? 0;
    else if (p.type === 'hour') hour = Number(p.value);
    else if (p.type === 'minute') minute = Number(p.value);
  }
  return { day, minute: hour * 60 + minute };
}

export const minuteOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Whether `at` falls in one of the windows, read on the zone's wall clock: across a daylight-saving
 * change a window keeps its local hours (a wall time that occurs twice is inside both times, one
 * that does not occur is never reached).
 */
export function inSchedule(schedule: Schedule | null, at: number): boolean {
  if (!schedule) return true;
  const { day, minute } = wallClock(schedule.timezone, at);
  const yesterday = day === 1 ? 7 : day - 1;
  for (const w of schedule.windows) {
    const from = minuteOf(w.from);
    const to = minuteOf(w.to);
    if (from < to) {
      if (w.days.includes(day) && minute >= from && minute < to) return true;
    } else {
      // Past midnight: the evening part on the window's day, the morning part on the next.
      if (w.days.includes(day) && minute >= from) return true;
      if (w.days.includes(yesterday) && minute < to) return true;
    }
  }
  return false;
}

/** Every condition of the rule but the cooldown. */
export function ruleMatches(rule: RuleSpec, e: EventFacts): boolean {
  const m = rule.match;
  if ((e.severity ?? 0) < m.severity_min) return false;
  if (m.categories.length && !m.categories.includes(e.category)) return false;
  if (m.open_only && !e.open) return false;
  if (m.camera_ids.length || m.tag_ids.length) {
    if (e.camera_id === null) return false;
    if (!m.camera_ids.includes(e.camera_id) && !e.tags.some((t) => m.tag_ids.includes(t))) return false;
  }
  if (!detectorMatches(m.detectors, e.detector)) return false;
  return inSchedule(rule.schedule, e.occurred_at);
}

/**
 * The deliveries of these events in this order, each rule in its order: one per (event, rule,
 * channel). A rule with a cooldown sends an event of a (rule, camera) key only when no event of
 * the key was sent within `cooldown_secs` of it (either side); otherwise the key counts it as
 * suppressed. `cooldowns` holds the keys' state before (absent: never sent); the changed states
 * come back.
 */
export function plan(
  rules: readonly RuleSpec[],
  events: readonly EventFacts[],
  cooldowns: ReadonlyMap<string, CooldownState>,
): { deliveries: PlannedDelivery[]; cooldowns: Map<string, CooldownState> } {
  const changed = new Map<string, CooldownState>();
  const deliveries: PlannedDelivery[] = [];
  for (const e of events) {
    for (const r of rules) {
      if (!ruleMatches(r, e)) continue;
      if (r.cooldown_secs > 0) {
        const key = cooldownKey(r.id, e.camera_id);
        const s = changed.get(key) ?? { ...(cooldowns.get(key) ?? { last_sent_at: null, suppressed: 0 }) };
        changed.set(key, s);
        if (s.last_sent_at !== null && Math.abs(e.occurred_at - s.last_sent_at) < r.cooldown_secs * 1000) {
          s.suppressed++;
          continue;
        }
        s.last_sent_at = s.last_sent_at === null ? e.occurred_at : Math.max(s.last_sent_at, e.occurred_at);
      }
      for (const c of r.channel_ids) deliveries.push({ event_id: e.id, rule_id: r.id, channel_id: c });
    }
  }
  return { deliveries, cooldowns: changed };
}
