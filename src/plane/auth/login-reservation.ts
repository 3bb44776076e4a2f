import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { errors } from '../errors.js';

export interface Budget { limiter: RateLimiterAbstract; key: string }

/**
 * Takes one attempt from every budget (per login, per address) before the password is checked,
 * in one atomic step of the store each: reading the counters, checking, then counting let 40
 * parallel attempts through 16 checks against a limit of 5 (issue 10, finding 4). A refused
 * attempt gives back what it took from the other budgets and answers 429 with the longest wait.
 */
export async function reserveAttempt(budgets: Budget[]): Promise<void> {
  const results = await Promise.allSettled(budgets.map((b) => b.limiter.consume(b.key, 1)));
  const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (!refused.length) return;
  await Promise.all(budgets.map((b, i) => (results[i]!.status === 'fulfilled' ? b.limiter.reward(b.key, 1).catch(() => {}) : undefined)));
  // A failure of the store itself (database down) is not a throttle.
  const failure = refused.find((r) => !(r.reason instanceof RateLimiterRes));
  if (failure) throw failure.reason;
  const wait = Math.max(...refused.map((r) => (r.reason as RateLimiterRes).msBeforeNext));
  throw errors.loginThrottled(Math.max(1, Math.ceil(wait / 1000)));
}
