import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/plane/errors.js';
import { AnalyticsSlots, analyticsLimits } from '../../../../src/plane/events/analytics/analytics.gate.js';

// Issue 25, finding 1: analytics' slots per process and per organisation (429 analytics_busy).
const busy = (take: () => unknown): ApiError => {
  try {
    take();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('a slot was free');
};

describe('analytics slots', () => {
  it('leave a share of the pool to other work, and one organisation half of it', () => {
    expect(analyticsLimits(10)).toMatchObject({
      processSlots: 3,
      orgSlots: 1,
      deadlineMs: 10_000,
      batchBudgetMs: 30_000,
    });
    expect(analyticsLimits(20)).toMatchObject({ processSlots: 6, orgSlots: 3 });
    // The embedded database is one connection: everything takes turns on it anyway.
    expect(analyticsLimits(1)).toMatchObject({ processSlots: 1, orgSlots: 1 });
    expect(analyticsLimits(10, { deadlineMs: 50 })).toMatchObject({ processSlots: 3, deadlineMs: 50 });
  });

  it("answer 429 analytics_busy with retry_after when the organisation's or the process's slots are taken", () => {
    const slots = new AnalyticsSlots({ processSlots: 3, orgSlots: 2 });
    const a1 = slots.take('a');
    slots.take('a');
    const org = busy(() => slots.take('a'));
    expect(org.status).toBe(429);
    expect(org.body()).toEqual({ error: 'analytics_busy', scope: 'org', retry_after: 1 });
    expect(org.headers).toEqual({ 'retry-after': '1' });
    // Another organisation still finds the slot organisation a cannot take.
    const b1 = slots.take('b');
    const global = busy(() => slots.take('c'));
    expect(global.body()).toEqual({ error: 'analytics_busy', scope: 'global', retry_after: 1 });
    expect(slots.inUse()).toBe(3);
    // A slot given back twice counts once.
    a1();
    a1();
    expect(slots.inUse()).toBe(2);
    expect(slots.inUse('a')).toBe(1);
    slots.take('c')();
    b1();
    expect(slots.inUse('b')).toBe(0);
  });
});
