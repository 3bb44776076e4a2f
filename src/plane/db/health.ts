import type { Logger } from 'pino';
import { sql } from 'kysely';
import type { Db } from './database.js';
import { isDriverError } from './driver-errors.js';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'HEARTBEAT_TIMEOUT',
  // A write refused by a server that no longer takes writes (a demoted primary, a standby): the
  // database the plane writes to is gone until the heartbeat finds the promoted one (primary-locator.ts).
  '25006',
  'NO_PRIMARY',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
]);

// node-postgres reports a lost or never-made connection by message only (no code).
// A wait for a busy pool ("timeout exceeded when trying to connect") is not among them: the
// server answers, the pool is saturated (db/heartbeat.ts isPoolWaitTimeout).
const CONNECTION_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end)/;

/**
 * True for failures of the database connection (server gone, restarting, refusing), not of the
 * query, and only for errors the database driver raised (or that carry one as their cause).
 */
export function isConnectionError(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 8) return false;
  if (isDriverError(err) && looksLikeConnectionFailure(err)) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isConnectionError(cause, depth + 1);
}

function looksLikeConnectionFailure(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: string; errno?: string; cause?: unknown; message?: unknown };
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  if (typeof e.errno === 'string' && CONNECTION_CODES.has(e.errno)) return true;
  if (e.code === undefined && typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return true;
  return e.cause !== undefined && e.cause !== err && looksLikeConnectionFailure(e.cause);
}

/**
 * Whether the database answers. A connection failure anywhere marks it down; while down,
 * requests answer 503 at once instead of waiting on connect time-outs, and a probe runs every
 * `probeMs` until the server is back (the issue asks for readiness within 2 s of its return).
 */
export class DbHealth {
  private up = false;
  private probing: NodeJS.Timeout | null = null;
  private beating: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly probeMs: number;

  /**
   * `heartbeat` (Database.heartbeat): asked every `heartbeatMs` while the database is up, since a
   * silenced connection raises no error of its own; a failed heartbeat marks the database down.
   */
  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    opts: { probeMs?: number; heartbeat?: () => Promise<void>; heartbeatMs?: number } = {},
  ) {
    this.probeMs = opts.probeMs ?? 250;
    this.heartbeat = opts.heartbeat;
    this.heartbeatMs = opts.heartbeatMs ?? 500;
  }

  private readonly heartbeat?: () => Promise<void>;
  private readonly heartbeatMs: number;

  get isUp(): boolean {
    return this.up;
  }

  markUp(): void {
    if (this.up) return;
    this.up = true;
    this.log.info('database available');
    this.scheduleHeartbeat();
  }

  private scheduleHeartbeat(): void {
    if (!this.heartbeat || this.beating || this.stopped) return;
    const beat = this.heartbeat;
    this.beating = setTimeout(async () => {
      try {
        await beat();
        this.beating = null;
        if (this.up) this.scheduleHeartbeat();
      } catch (err) {
        this.beating = null;
        this.markDown(err);
      }
    }, this.heartbeatMs);
    this.beating.unref();
  }

  markDown(reason: unknown): void {
    if (this.stopped) return;
    if (this.up) {
      this.up = false;
      this.log.warn({ err: describe(reason) }, 'database unavailable');
    }
    this.startProbe();
  }

  /**
   * The first start: probes until the database answers and `startup` (migrations, bootstrap)
   * has succeeded; resolves once the database is marked up.
   */
  start(startup: () => Promise<void>): Promise<void> {
    return new Promise((resolve) => this.startProbe(startup, resolve));
  }

  /** Starts probing; `ready` is the start-up work (migrations, bootstrap) that must succeed first. */
  private startProbe(ready?: () => Promise<void>, onUp?: () => void): void {
    if (this.probing || this.stopped) return;
    const tick = async () => {
      this.probing = null;
      try {
        // The heartbeat's own connection: it is what reopens a pool closed by a failed heartbeat.
        if (this.heartbeat) await this.heartbeat();
        else await sql`select 1`.execute(this.db);
        if (ready) await ready();
        ready = undefined;
        this.markUp();
        onUp?.();
      } catch (err) {
        if (this.stopped) return;
        if (!isConnectionError(err)) this.log.error({ err: describe(err) }, 'database start-up step failed');
        this.probing = setTimeout(tick, this.probeMs);
        this.probing.unref();
      }
    };
    this.probing = setTimeout(tick, 0);
    this.probing.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.probing) clearTimeout(this.probing);
    if (this.beating) clearTimeout(this.beating);
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return `${e?.code ?? ''} ${e?.message ?? String(err)}`.trim();
}
