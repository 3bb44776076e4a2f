import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  inSchedule,
  plan,
  type CooldownState,
  type EventFacts,
  type RuleSpec,
  type Schedule,
} from '../../../src/plane/notifications/match.js';

// The outbox's plan (document 4 §13) against a naive model written from the spec's words: for
// random events and rules (masks, severities, cameras, tags, categories, open intervals,
// schedules in zones across daylight-saving changes, cooldowns), in random batches carrying the
// cooldown state from one to the next, the deliveries are the model's.

const CAMERAS = [
  'c0000000-0000-4000-8000-000000000001',
  'c0000000-0000-4000-8000-000000000002',
  'c0000000-0000-4000-8000-000000000003',
];
const TAGS = ['a0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000002'];
const CAMERA_TAGS: Record<string, string[]> = {
  [CAMERAS[0]!]: [TAGS[0]!],
  [CAMERAS[1]!]: [TAGS[0]!, TAGS[1]!],
  [CAMERAS[2]!]: [],
};
const DETECTORS = ['person', 'person.face', 'vehicle.car', 'vehicle', 'system.node_unreachable'];
const MASKS = ['person', 'person*', 'vehicle.*', '*', 'system.*', 'veh*'];
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata'];
// Around the 2026 changes: Europe 29 Mar and 25 Oct, New York 8 Mar and 1 Nov, Lord Howe 5 Apr and 4 Oct.
const SPANS = [
  '2026-03-07T00:00:00Z',
  '2026-03-28T12:00:00Z',
  '2026-04-04T00:00:00Z',
  '2026-10-24T12:00:00Z',
  '2026-10-31T12:00:00Z',
].map(Date.parse);

const hhmm = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const schedule: fc.Arbitrary<Schedule | null> = fc.option(
  fc.record({
    timezone: fc.constantFrom(...ZONES),
    windows: fc.array(
      fc
        .record({
          days: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
          from: hhmm,
          to: fc.oneof(hhmm, fc.constant('24:00')),
        })
        .filter((w) => w.from !== w.to),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  { nil: null, freq: 3 },
);
const rule = (id: number): fc.Arbitrary<RuleSpec> =>
  fc.record({
    id: fc.constant(`r0000000-0000-4000-8000-00000000000${id}`),
    match: fc.record({
      detectors: fc.uniqueArray(fc.constantFrom(...MASKS), { maxLength: 2 }),
      severity_min: fc.integer({ min: 0, max: 4 }),
      camera_ids: fc.uniqueArray(fc.constantFrom(...CAMERAS), { maxLength: 2 }),
      tag_ids: fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 1 }),
      categories: fc.uniqueArray(fc.constantFrom('camera', 'system'), { maxLength: 1 }),
      open_only: fc.boolean(),
    }),
    schedule,
    cooldown_secs: fc.constantFrom(0, 0, 60, 600, 3600),
    channel_ids: fc.uniqueArray(fc.constantFrom('ch-1', 'ch-2', 'ch-3'), { minLength: 1, maxLength: 2 }),
  });
const events = fc
  .tuple(
    fc.constantFrom(...SPANS),
    fc.array(
      fc.record({
        dt: fc.integer({ min: 0, max: 30 * 3600_000 }),
        camera: fc.option(fc.constantFrom(...CAMERAS), { nil: null }),
        detector: fc.constantFrom(...DETECTORS),
        severity: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
        category: fc.constantFrom('camera', 'system'),
        open: fc.boolean(),
      }),
      { maxLength: 40 },
    ),
  )
  .map(([start, items]) =>
    // In time order: the cooldown compares an event with those sent before it (docs/notifications.md).
    items
      .map((e, i) => ({ ...e, at: start + e.dt, i }))
      .sort((a, b) => a.at - b.at || a.i - b.i)
      .map((e, i): EventFacts => ({
        id: `e-${i}`,
        occurred_at: e.at,
        camera_id: e.camera,
        tags: e.camera ? CAMERA_TAGS[e.camera]! : [],
        detector: e.detector,
        severity: e.severity,
        category: e.category,
        open: e.open,
      })),
  );

/** The zone's wall clock from its UTC offset at the instant (another way than match.ts's formatter parts). */
function naiveWall(zone: string, at: number): { day: number; minute: number } {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT(?:([+-])(\d\d):(\d\d))?/.exec(name)!;
  const offset = m[1] ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  const local = new Date(at + offset * 60_000);
  return { day: ((local.getUTCDay() + 6) % 7) + 1, minute: local.getUTCHours() * 60 + local.getUTCMinutes() };
}

/** The week's minutes each window paints, [from, to), a window past midnight into the next day. */
function naiveInSchedule(s: Schedule | null, at: number): boolean {
  if (!s) return true;
  const week = new Set<number>();
  const minute = (t: string) => Number(t.split(':')[0]) * 60 + Number(t.split(':')[1]);
  for (const w of s.windows) {
    for (const d of w.days) {
      let m = minute(w.from);
      const length = (minute(w.to) - m + 1440) % 1440 || 1440;
      for (let k = 0; k < length; k++, m++) week.add(((d - 1) * 1440 + m) % (7 * 1440));
    }
  }
  const { day, minute: now } = naiveWall(s.timezone, at);
  return week.has((day - 1) * 1440 + now);
}

function naive(rules: RuleSpec[], evs: EventFacts[]): { sent: string[]; suppressed: Map<string, number> } {
  const sent: string[] = [];
  const sentAt = new Map<string, number[]>();
  const suppressed = new Map<string, number>();
  for (const e of evs) {
    for (const r of rules) {
      const m = r.match;
      const masks =
        m.detectors.length === 0 ||
        m.detectors.some((k) => (k.endsWith('*') ? e.detector.startsWith(k.slice(0, -1)) : e.detector === k));
      const cameraOk =
        m.camera_ids.length + m.tag_ids.length === 0 ||
        (e.camera_id !== null &&
          (m.camera_ids.includes(e.camera_id) || m.tag_ids.some((t) => CAMERA_TAGS[e.camera_id!]!.includes(t))));
      const ok =
        masks &&
        (e.severity ?? 0) >= m.severity_min &&
        cameraOk &&
        (m.categories.length === 0 || m.categories.includes(e.category)) &&
        (!m.open_only || e.open) &&
        naiveInSchedule(r.schedule, e.occurred_at);
      if (!ok) continue;
      const key = `${r.id}/${e.camera_id}`;
      const before = sentAt.get(key) ?? [];
      if (r.cooldown_secs > 0 && before.some((s) => Math.abs(e.occurred_at - s) < r.cooldown_secs * 1000)) {
        suppressed.set(key, (suppressed.get(key) ?? 0) + 1);
        continue;
      }
      sentAt.set(key, [...before, e.occurred_at]);
      for (const c of r.channel_ids) sent.push(`${e.id}|${r.id}|${c}`);
    }
  }
  return { sent, suppressed };
}

describe('notification matching', () => {
  it("the plan of random events and rules, in random batches, is the naive model's", () => {
    fc.assert(
      fc.property(
        fc.tuple(rule(1), rule(2), rule(3)),
        events,
        fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 10 }),
        (rules, evs, cuts) => {
          const state = new Map<string, CooldownState>();
          const got: string[] = [];
          for (let at = 0, k = 0; at < evs.length; k++) {
            const batch = evs.slice(at, at + cuts[k % cuts.length]!);
            at += batch.length;
            const { deliveries, cooldowns } = plan(rules, batch, state);
            for (const [key, s] of cooldowns) state.set(key, s);
            got.push(...deliveries.map((d) => `${d.event_id}|${d.rule_id}|${d.channel_id}`));
          }
          const want = naive(rules, evs);
          expect(got).toEqual(want.sent);
          for (const [key, n] of want.suppressed)
            expect(state.get(key.replace('/null', '/00000000-0000-0000-0000-000000000000'))?.suppressed).toBe(n);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a window keeps its wall-clock hours across the daylight-saving changes of its zone', () => {
    const nights: Schedule = { timezone: 'Europe/Berlin', windows: [{ days: [7], from: '01:30', to: '03:30' }] };
    // Sunday 29 March 2026: 02:00 CET becomes 03:00 CEST; 00:45 UTC is 01:45 local, 01:15 UTC is 03:15 local.
    expect(inSchedule(nights, Date.parse('2026-03-29T00:45:00Z'))).toBe(true);
    expect(inSchedule(nights, Date.parse('2026-03-29T01:15:00Z'))).toBe(true);
    expect(inSchedule(nights, Date.parse('2026-03-29T01:35:00Z'))).toBe(false);
    // Sunday 25 October 2026: 02:30 local happens twice (00:30 and 01:30 UTC): both inside.
    expect(inSchedule(nights, Date.parse('2026-10-25T00:30:00Z'))).toBe(true);
    expect(inSchedule(nights, Date.parse('2026-10-25T01:30:00Z'))).toBe(true);
    expect(inSchedule(nights, Date.parse('2026-10-25T02:30:00Z'))).toBe(false);
    const overnight: Schedule = { timezone: 'America/New_York', windows: [{ days: [5], from: '22:00', to: '06:00' }] };
    expect(inSchedule(overnight, Date.parse('2026-11-07T10:59:00Z'))).toBe(true); // Saturday 05:59 EST
    expect(inSchedule(overnight, Date.parse('2026-11-07T11:00:00Z'))).toBe(false);
    expect(inSchedule(overnight, Date.parse('2026-11-06T02:59:00Z'))).toBe(false); // Thursday 22:59 EDT
  });
});
