import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';

/**
 * What an attack on the plane's credentials looks like in its log (issue 25, item 16): failed
 * logins, throttled addresses and refused tokens as warn lines, so the log tail and a log
 * shipper see it without reading the audit. A line names the address, the event and its reason,
 * never a password or a token (nor a hash of one: a weak password's hash is a dictionary away).
 */
type SecurityEvent = 'auth.login_failed' | 'auth.login_throttled' | 'auth.token_refused' | 'module_token.refused';

/** Event-specific fields: short words and numbers only, never credential text. */
type SecurityFields = { ip: string } & Record<string, string | number>;

const KEYS_MAX = 10_000;

/**
 * Warn lines, some of them thinned: refusals that cost the client nothing (a 429, a 401 for a
 * token) can come thousands a second from one address, so such an event is written at most once
 * per `everyMs` per address, the next line carrying how many were left out (`repeated`). Failed
 * logins are not thinned: the login throttle bounds them, and each names what was tried.
 */
export class SecurityLog {
  private readonly last = new Map<string, { at: number; left: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly everyMs = 60_000,
  ) {}

  warn(
    log: Logger,
    event: SecurityEvent,
    fields: SecurityFields,
    message: string,
    opts: { thin?: boolean } = {},
  ): void {
    if (!opts.thin) {
      log.warn({ event, ...fields }, message);
      return;
    }
    const key = `${event} ${fields.ip}`;
    const now = this.clock.now();
    const seen = this.last.get(key);
    if (seen && now - seen.at < this.everyMs) {
      seen.left++;
      return;
    }
    if (!seen && this.last.size >= KEYS_MAX) this.prune(now);
    this.last.set(key, { at: now, left: 0 });
    log.warn({ event, ...fields, ...(seen?.left ? { repeated: seen.left } : {}) }, message);
  }

  // Entries past their window say nothing any more; if every entry is recent, the oldest go.
  private prune(now: number): void {
    for (const [k, v] of this.last) if (now - v.at >= this.everyMs) this.last.delete(k);
    for (const k of this.last.keys()) {
      if (this.last.size < KEYS_MAX) break;
      this.last.delete(k);
    }
  }
}
