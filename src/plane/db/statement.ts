import { sql, type Transaction } from 'kysely';
import type { Schema } from './schema.js';

/** SQLSTATE of a statement PostgreSQL cancelled: its statement_timeout, or pg_cancel_backend. */
export const QUERY_CANCELED = '57014';

/**
 * The limits of one heavy read (issue 25, finding 1): a deadline PostgreSQL enforces itself, so a
 * statement never outlives it on the server whatever happens to the process that sent it, and the
 * caller's signal (its HTTP client went away), on which the statement is cancelled at once.
 */
export interface StatementLimits {
  deadlineMs: number;
  signal?: AbortSignal;
  /**
   * Database.cancel: cancels what the given server process runs (a no-op on the embedded
   * database); `standby`: that process is a replica's (ReadRoute.cancel), not the primary's.
   */
  cancel(pid: number, standby: boolean): Promise<void>;
}

/** The caller's signal fired: nobody waits for this statement's answer any more. */
export class StatementAbandoned extends Error {
  readonly code = 'STATEMENT_ABANDONED';
  constructor() {
    super('the statement was abandoned: its caller went away');
  }
}

/**
 * Runs `statement` inside `trx` under `limits`. `statement_timeout` is set with set_config(..., true),
 * SET LOCAL's function form (a bound parameter): it ends with the transaction, so a pooled connection
 * never keeps it. When the signal fires while the statement runs, the server process that runs it
 * (read from the same transaction, so it is this connection's) is cancelled, and the caller stops
 * waiting at once: on the embedded database, which nothing can interrupt, that is all it can do.
 * A signal that fired before the statement started keeps it from starting.
 */
export async function underLimits<T>(
  trx: Transaction<Schema>,
  limits: StatementLimits,
  statement: () => Promise<T>,
): Promise<T> {
  const { signal } = limits;
  if (signal?.aborted) throw new StatementAbandoned();
  const ms = String(Math.max(1, Math.round(limits.deadlineMs)));
  // JIT off as for searches: compiling the plan of an aggregate over ~36 day partitions cost more
  // than running it, and a compile is time the deadline cannot interrupt.
  // The server's role with its process id: a read may run on a replica, where it must be cancelled.
  const r = await sql<{
    pid: number;
    standby: boolean;
  }>`select pg_backend_pid() as pid, pg_is_in_recovery() as standby, set_config('statement_timeout', ${ms}, true), set_config('jit', 'off', true)`.execute(
    trx,
  );
  if (signal?.aborted) throw new StatementAbandoned();
  if (!signal) return statement();
  const pid = Number(r.rows[0]?.pid ?? 0);
  const standby = r.rows[0]?.standby === true;
  let running = true;
  let onAbort!: () => void;
  const abandoned = new Promise<never>((_, reject) => {
    onAbort = () => {
      // Only while the statement runs: the connection stays this transaction's until it settles,
      // so the process cancelled is the one running this statement, never another request's.
      if (running && pid > 0) void limits.cancel(pid, standby).catch(() => {});
      reject(new StatementAbandoned());
    };
  });
  abandoned.catch(() => {});
  signal.addEventListener('abort', onAbort, { once: true });
  const work = statement().finally(() => {
    running = false;
  });
  // The statement's own failure (a cancel it received) after the caller stopped waiting is nobody's.
  work.catch(() => {});
  try {
    return await Promise.race([work, abandoned]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
