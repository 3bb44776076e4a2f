import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/common/clock.js';
import { IntakeRateLimiter } from '../../../src/plane/events/intake/rate-limit.js';

/** The per-token intake bucket on an injected clock (document 1: rate_limit, 429 rate_limited with retry_after). */
describe('the per-token intake rate', () => {
  it('admits one second of the rate, then answers the whole seconds to wait', () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const limiter = new IntakeRateLimiter(clock, 3);
    expect(limiter.take('t', null, 3)).toBe(0);
    expect(limiter.take('t', null, 1)).toBe(1);
    clock.advance(333);
    expect(limiter.take('t', null, 1)).toBe(1);
    clock.advance(1);
    expect(limiter.take('t', null, 1)).toBe(0);
  });

  it('a batch above one second of the rate passes on a full bucket and leaves a debt the wait covers', () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const limiter = new IntakeRateLimiter(clock, 3);
    expect(limiter.take('t', 2, 4)).toBe(0);
    // 2 - 4 = -2 tokens: one more event needs 3 tokens, 1.5 s at 2/s.
    expect(limiter.take('t', 2, 1)).toBe(2);
    clock.advance(1000);
    expect(limiter.take('t', 2, 1)).toBe(1);
    clock.advance(500);
    expect(limiter.take('t', 2, 1)).toBe(0);
  });

  it("a token's own limit applies at once, and tokens do not share a bucket", () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const limiter = new IntakeRateLimiter(clock, 3);
    expect(limiter.take('a', null, 3)).toBe(0);
    expect(limiter.take('a', null, 1)).toBe(1);
    expect(limiter.take('a', 10, 5)).toBe(0);
    expect(limiter.take('b', null, 3)).toBe(0);
  });
});
