import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { errors } from '../errors.js';

export interface Budget {
  name: string;
  limiter: RateLimiterAbstract;
  key: string;
  limit: number;
}

/**
 * Attempts in flight, counted against the failure budgets before the password is checked
 * (issue 10, finding 4): reading the counters, checking, then counting let 40 parallel wrong
 * passwords through 16 checks against a limit of 5. An attempt holds its reservation until its
 * failure is counted in the database (or it succeeded, or failed otherwise). When the failures
 * recorded reach the limit: 429. When the attempts in flight fill what is left of it, the next
 * one waits for one of them to end and checks again: a right password among parallel logins is
 * never refused for failures that have not happened, and wrong ones never pass the limit.
 * Kept in memory, not in the database: a reservation there could not be given back while the
 * database is away, and would lock a user out after an outage for attempts that never ended.
 */
export class AttemptReservations {
  private readonly inFlight = new Map<string, number>();
  private waiters: Array<() => void> = [];

  /**
   * Reserves one attempt on every budget, or answers 429 with the longest wait (after telling
   * `onRefused` which budgets are spent); returns the release.
   */
  async reserve(budgets: Budget[], onRefused?: (spent: string[], retryAfterSecs: number) => void): Promise<() => void> {
    for (;;) {
      const recorded = await Promise.all(budgets.map((b) => b.limiter.get(b.key)));
      // From here to the take nothing awaits: the check and the take are one step.
      let waitMs = 0;
      let full = false;
      const spent: string[] = [];
      budgets.forEach((b, i) => {
        const r = recorded[i];
        const failures = r?.consumedPoints ?? 0;
        if (failures >= b.limit) {
          waitMs = Math.max(waitMs, r?.msBeforeNext ?? 1000, 1000);
          spent.push(b.name);
        } else if (failures + this.count(b) >= b.limit) full = true;
      });
      if (waitMs > 0) {
        const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
        onRefused?.(spent, retryAfter);
        throw errors.loginThrottled(retryAfter);
      }
      if (!full) return this.take(budgets);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private take(budgets: Budget[]): () => void {
    for (const b of budgets) this.inFlight.set(this.id(b), this.count(b) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      for (const b of budgets) {
        const n = this.count(b) - 1;
        if (n > 0) this.inFlight.set(this.id(b), n);
        else this.inFlight.delete(this.id(b));
      }
      // Every waiter looks again (its budgets may be other ones; a look is one read).
      const woken = this.waiters;
      this.waiters = [];
      for (const w of woken) w();
    };
  }

  private id(b: Budget): string {
    return `${b.name}:${b.key}`;
  }
  private count(b: Budget): number {
    return this.inFlight.get(this.id(b)) ?? 0;
  }
}
