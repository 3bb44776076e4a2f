import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodePlan, encodePlan, type PlanItem } from '../../../src/plane/notifications/outbox.plan.js';

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
});
