import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';
import type { Job } from '../jobs/jobs.js';
import type { PoolStats, ReplicaStatus } from './drivers.js';

// The database as the plane's domains see it, whichever engine serves it (database.ts opens a
// server's pool, pglite.ts the embedded database).

export type Db = Kysely<Schema>;
export type NotifyHandler = (payload: string) => void;

/** One dedicated connection, for work that must stay on one session (migrations under a lock). */
export interface RawSession {
  exec(text: string): Promise<void>;
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Db;
  /**
   * Where reads that may lag go: the replicas of `[database] read_url` in use, else the primary.
   * Absent (the embedded database, a test's double): those reads are the primary's.
   */
  readonly reads?: ReadRoute;
  /** LISTEN on a channel; `onConnect` runs after every (re)connection so a listener can catch up. */
  listen(channel: string, handler: NotifyHandler, onConnect?: () => void): Promise<() => Promise<void>>;
  withSession<T>(fn: (s: RawSession) => Promise<T>): Promise<T>;
  poolStats(): PoolStats;
  /**
   * Cancels the statement the given server process of this plane runs (pg_cancel_backend, from a
   * connection of its own: the pool may be the very thing that is full). The embedded database runs
   * its statements on this thread, where nothing can interrupt one: there it does nothing.
   */
  cancel(pid: number): Promise<void>;
  /**
   * A trivial query within the connect time-out on a connection of its own. When the server stays
   * silent, every connection of the process is severed before it rejects: queries waiting on a
   * silenced socket then fail as lost connections (503) instead of hanging, and none is reused.
   */
  heartbeat(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where reads that may lag go (document 4, section 15: feed pages, searches, analytics, audit
 * pages, usage): a hot standby of `[database] read_url` that is in use, else the primary. A read
 * that must see the caller's own write never takes this route: it reads the primary's `db`.
 */
export interface ReadRoute {
  /** A handle like the primary's: each connection it takes is a replica's in use, else the primary's. */
  readonly db: Db;
  /** false: no read_url (the embedded database, a single server): `db` is the primary's own. */
  readonly replicated: boolean;
  /**
   * One replica in use now and the WAL position it had replayed at its last check (it replays on,
   * never back); null: reads go to the primary. For a page whose stream cursor must not be ahead
   * of what it read (events/feed/read-marks.ts).
   */
  pin(): { db: Db; replayed: bigint } | null;
  /** The primary's WAL position now: every commit acknowledged before this call is at or before it. */
  primaryLsn(): Promise<bigint>;
  status(): ReplicaStatus[];
  /** Cancels what the given server process of a replica runs for this plane (a statement on a standby). */
  cancel(pid: number): Promise<void>;
  /** The lag check of every replica, once a second. */
  jobs(): Job[];
  close(): Promise<void>;
}
