import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  decodePlan,
  encodePlan,
  mergePlans,
  planCompact,
  type PlanItem,
} from '../../../src/plane/notifications/outbox.plan.js';
import { plan } from '../../../src/plane/notifications/match.js';

// The compact plan of an event write (notification_outbox): what is encoded decodes to the same
// deliveries, event by event in first-seen order, each (event, rule, channel) once.

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('outbox plan encoding', () => {
  it('a hundred events to the same three pairs are three pairs, one set and a hundred ids', () => {
    const events = ids('e', 100);
    const pairs = [0, 1, 2].map((i) => ({ rule_id: `r${i}`, channel_id: `c${i}`, rule_name: `Rule ${i}` }));
    const items: PlanItem[] = events.flatMap((e) => pairs.map((p) => ({ event_id: e, ...p })));
    const plan = encodePlan(items);
    expect(plan.pairs).toEqual(pairs.map((p) => [p.rule_id, p.channel_id, p.rule_name]));
    expect(plan.sets).toEqual([[0, 1, 2]]);
    expect(plan.event_ids).toEqual(events);
    expect(plan.event_sets).toEqual(events.map(() => 0));
    expect(decodePlan(plan)).toEqual(items);
  });

  it('decodes to the planned deliveries for any mix of events, rules and channels', () => {
    const item = fc.record({
      event_id: fc.constantFrom(...ids('e', 12)),
      rule_id: fc.constantFrom(...ids('r', 4)),
      channel_id: fc.constantFrom(...ids('c', 5)),
    });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 80 }), (raw) => {
        const items = raw.map((d) => ({ ...d, rule_name: `name of ${d.rule_id}` }));
        const plan = encodePlan(items);
        // The naive model: distinct triples, grouped by event in first-seen order.
        const seen = new Set<string>();
        const order = [...new Set(items.map((d) => d.event_id))];
        const want = order.flatMap((e) =>
          items.filter((d) => {
            const k = `${d.event_id}/${d.rule_id}/${d.channel_id}`;
            if (d.event_id !== e || seen.has(k)) return false;
            seen.add(k);
            return true;
          }),
        );
        expect(decodePlan(plan)).toEqual(want);
        expect(plan.event_ids).toEqual(order);
        expect(new Set(plan.sets.map((s) => s.join())).size).toBe(plan.sets.length);
      }),
    );
  });

  it('planCompact decodes to what plan gives for rules without cooldowns; merged plans to their concatenation', () => {
    const rule = fc.record({
      id: fc.constantFrom(...ids('r', 4)),
      name: fc.constantFrom('door', 'Tür', '門'),
      detectors: fc.subarray(['door.*', 'door.open', 'glass', 'lpr.*']),
      severity_min: fc.integer({ min: 0, max: 4 }),
      channel_ids: fc.uniqueArray(fc.constantFrom(...ids('c', 4)), { minLength: 1, maxLength: 3 }),
    });
    const event = fc.record({
      id: fc.uuid(),
      detector: fc.constantFrom('door.open', 'door.forced', 'glass', 'lpr.read', 'bell'),
      severity: fc.option(fc.integer({ min: 0, max: 4 })),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(rule, { selector: (r) => r.id, maxLength: 4 }),
        fc.array(fc.array(event, { maxLength: 12 }), { minLength: 1, maxLength: 3 }),
        (raw, batches) => {
          const rules = raw.map((r) => ({
            id: r.id,
            name: r.name,
            schedule: null,
            cooldown_secs: 0,
            channel_ids: r.channel_ids,
            match: {
              detectors: r.detectors,
              severity_min: r.severity_min,
              camera_ids: [],
              tag_ids: [],
              categories: [],
              open_only: false,
            },
          }));
          const name = new Map(rules.map((r) => [r.id, r.name]));
          const facts = batches.map((b) =>
            b.map((e) => ({ ...e, occurred_at: 0, camera_id: null, tags: [], category: 'camera', open: false })),
          );
          const want = facts.map((f) =>
            plan(rules, f, new Map()).deliveries.map((d) => ({ ...d, rule_name: name.get(d.rule_id)! })),
          );
          const plans = facts.map((f) => planCompact(rules, f));
          plans.forEach((p, n) => expect(p ? decodePlan(p) : []).toEqual(want[n]));
          const kept = plans.flatMap((p) => (p ? [p] : []));
          if (kept.length) expect(decodePlan(mergePlans(kept))).toEqual(want.flat());
        },
      ),
    );
  });
});
