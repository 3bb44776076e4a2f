import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { Job } from '../jobs/jobs.js';
import { AttemptReservations } from './login-reservation.js';
import { LOGIN_THROTTLE_TABLE, loginThrottleStore, throttleClient } from './login-throttle.store.js';
import type { SecurityLog } from './security-log.js';

/**
 * The failed-login budgets, per login and per address: apart from AuthService because they are
 * their own state (the counters, the attempts in flight, their prune job) and the login only asks
 * them to reserve, to count a failure and to forgive a success.
 */
export class LoginThrottle {
  // Counted in the database, so that several plane processes share one budget of attempts.
  private readonly byLogin: RateLimiterPostgres;
  private readonly byAddress: RateLimiterPostgres;
  private readonly reservations = new AttemptReservations();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly security: SecurityLog,
    private readonly opts: { attempts: number; windowSecs: number },
  ) {
    const store = {
      storeClient: throttleClient(db),
      storeType: 'client',
      tableName: LOGIN_THROTTLE_TABLE,
      tableCreated: true,
      clearExpiredByTimeout: false,
      duration: opts.windowSecs,
    };
    this.byLogin = new RateLimiterPostgres({ ...store, keyPrefix: 'login', points: opts.attempts });
    this.byAddress = new RateLimiterPostgres({ ...store, keyPrefix: 'addr', points: opts.attempts * 4 });
  }

  /** Holds an attempt against both budgets (429 when one is spent); the result gives it back. */
  reserve(loginKey: string, ip: string): Promise<() => void> {
    return this.reservations.reserve(
      [
        { name: 'login', limiter: this.byLogin, key: loginKey, limit: this.opts.attempts },
        { name: 'address', limiter: this.byAddress, key: ip, limit: this.opts.attempts * 4 },
      ],
      (full, retryAfter) =>
        this.security.warn(
          this.log,
          'auth.login_throttled',
          { ip, budget: full.join(','), retry_after: retryAfter },
          'login refused: too many failed attempts',
          { thin: true },
        ),
    );
  }

  /** Counts a failed attempt in both budgets (before its reservation ends). */
  async failed(loginKey: string, ip: string): Promise<void> {
    await Promise.all([
      this.byLogin.penalty(loginKey, 1).catch(() => {}),
      this.byAddress.penalty(ip, 1).catch(() => {}),
    ]);
  }

  /** A right password clears its login's failures (not its address's). */
  async succeeded(loginKey: string): Promise<void> {
    await this.byLogin.delete(loginKey).catch(() => {});
  }

  /** Removes failed-login counters whose window has ended, in batches. */
  pruneJob(): Job {
    return {
      name: 'auth.login_throttle_prune',
      everyMs: 600_000,
      budgetMs: 10_000,
      run: async (deadline) => {
        while (
          this.clock.now() < deadline &&
          (await loginThrottleStore.pruneExpired(this.db, this.clock.now(), 1000)) === 1000
        );
      },
    };
  }
}
