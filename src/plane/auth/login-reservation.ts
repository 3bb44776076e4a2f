import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { errors } from '../errors.js';

export interface Budget { name: string; limiter: RateLimiterAbstract; key: string; limit: number }

/**
 * Attempts in flight, counted against the failure budgets before the password is checked
 * (issue 10, finding 4): reading the counters, checking, then counting let 40 parallel wrong
 * passwords through 16 checks against a limit of 5. An attempt holds its reservation until its
 * failure is counted in the database (or it succeeded, or failed otherwise), so recorded
 * failures plus attempts in flight never pass the limit in this process. Kept in memory, not
 * in the database: a reservation there could not be given back while the database is away,
 * and would lock a user out after an outage for attempts that never reached a verdict.
 */
export class AttemptReservations {
  private readonly inFlight = new Map<string, number>();

  /** Reserves one attempt on every budget, or answers 429 with the longest wait; returns the release. */
  async reserve(budgets: Budget[]): Promise<() => void> {
    const recorded = await Promise.all(budgets.map((b) => b.limiter.get(b.key)));
    // From here to the end of this turn nothing awaits: the check and the take are one step.
    let waitMs = 0;
    budgets.forEach((b, i) => {
      const r = recorded[i];
      if ((r?.consumedPoints ?? 0) + this.count(b) >= b.limit) waitMs = Math.max(waitMs, r?.msBeforeNext ?? 1000, 1000);
    });
    if (waitMs > 0) throw errors.loginThrottled(Math.max(1, Math.ceil(waitMs / 1000)));
    for (const b of budgets) this.inFlight.set(this.id(b), this.count(b) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      for (const b of budgets) {
        const n = this.count(b) - 1;
        if (n > 0) this.inFlight.set(this.id(b), n); else this.inFlight.delete(this.id(b));
      }
    };
  }

  private id(b: Budget): string { return `${b.name}:${b.key}`; }
  private count(b: Budget): number { return this.inFlight.get(this.id(b)) ?? 0; }
}
