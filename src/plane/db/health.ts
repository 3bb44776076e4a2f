import type { Logger } from 'pino';
import { sql } from 'kysely';
import type { Db } from './database.js';
import { isDriverError } from './driver-errors.js';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300',
]);

// node-postgres reports a lost or never-made connection by message only (no code).
const CONNECTION_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end)/;

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
  private readonly listeners: Array<(up: boolean) => void> = [];
  private stopped = false;

  constructor(private readonly db: Db, private readonly log: Logger, private readonly probeMs = 250) {}

  get isUp(): boolean { return this.up; }

  onChange(fn: (up: boolean) => void): void { this.listeners.push(fn); }

  markUp(): void {
    if (this.up) return;
    this.up = true;
    this.log.info('database available');
    for (const fn of this.listeners) fn(true);
  }

  markDown(reason: unknown): void {
    if (this.stopped) return;
    if (this.up) {
      this.up = false;
      this.log.warn({ err: describe(reason) }, 'database unavailable');
      for (const fn of this.listeners) fn(false);
    }
    this.startProbe();
  }

  /** Starts probing; `ready` is the start-up work (migrations, bootstrap) that must succeed first. */
  startProbe(ready?: () => Promise<void>): void {
    if (this.probing || this.stopped) return;
    const tick = async () => {
      this.probing = null;
      try {
        await sql`select 1`.execute(this.db);
        if (ready) await ready();
        ready = undefined;
        this.markUp();
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
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return `${e?.code ?? ''} ${e?.message ?? String(err)}`.trim();
}
