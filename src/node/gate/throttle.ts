import type { Clock } from '../../common/clock.js';

export interface ThrottleOptions {
  /** Failed logins from one address that open the window. */
  maxFailures: number;
  /** Failures older than this are forgotten; also how long the window stays open. */
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { maxFailures: 5, windowMs: 60_000 };

/**
 * Per-address login throttling. Together with the fixed 600 ms delay this bounds online
 * password guessing to a handful of tries per minute per address.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly opts: ThrottleOptions = DEFAULT_THROTTLE,
  ) {}

  /** Seconds until the window for `address` closes, or 0 when it is not open. */
  retryAfter(address: string): number {
    const recent = this.recent(address);
    if (recent.length < this.opts.maxFailures) return 0;
    const closesAt = recent[recent.length - 1] + this.opts.windowMs;
    return Math.max(1, Math.ceil((closesAt - this.clock.now()) / 1000));
  }

  fail(address: string): void {
    const recent = this.recent(address);
    recent.push(this.clock.now());
    this.failures.set(address, recent);
    if (this.failures.size > 10_000) this.prune();
  }

  succeed(address: string): void {
    this.failures.delete(address);
  }

  private recent(address: string): number[] {
    const cutoff = this.clock.now() - this.opts.windowMs;
    return (this.failures.get(address) ?? []).filter((t) => t > cutoff);
  }

  private prune(): void {
    for (const address of [...this.failures.keys()]) {
      if (this.recent(address).length === 0) this.failures.delete(address);
    }
  }
}
