import type { Clock } from '../../../common/clock.js';

/**
 * Per-token intake rate: a token bucket of one second's worth of events, refilled at `rate`
 * per second. A batch is admitted when the bucket holds at least min(batch, rate) tokens and
 * then takes the whole batch (the bucket may go into debt), so a batch larger than one
 * second's rate is possible and the long-run rate still never exceeds `rate`. Kept per
 * process: with several plane processes each one admits up to the rate.
 */
export class IntakeRateLimiter {
  private readonly buckets = new Map<string, { rate: number; tokens: number; at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly defaultRate: number,
  ) {}

  /** 0 when admitted, else the whole seconds to wait before the batch would be. */
  take(tokenId: string, rateLimit: number | null, n: number): number {
    const rate = rateLimit ?? this.defaultRate;
    const now = this.clock.now();
    let b = this.buckets.get(tokenId);
    if (!b || b.rate !== rate) {
      b = { rate, tokens: rate, at: now };
      this.buckets.set(tokenId, b);
    }
    b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    const need = Math.min(n, rate);
    if (b.tokens + 1e-9 < need) return Math.max(1, Math.ceil((need - b.tokens) / rate));
    b.tokens -= n;
    if (this.buckets.size > 10_000) this.prune(now);
    return 0;
  }

  private prune(now: number): void {
    for (const [k, b] of this.buckets) if (now - b.at > 60_000) this.buckets.delete(k);
  }
}
