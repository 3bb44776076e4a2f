import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type Kysely,
} from 'kysely';
import type { PGlite } from '@electric-sql/pglite';
import { fromDriverCall } from './driver-errors.js';

/** One replica as `/health` shows it (document 4, section 15). */
export interface ReplicaStatus {
  host: string;
  /** seconds behind the primary at the last check; null: it did not answer */
  lag_secs: number | null;
  /** whether reads go to it now (it answered, recently, within max_read_lag_secs) */
  used: boolean;
}

/** Live pool figures for the process sampler (document 1, control-plane process sample). */
export interface PoolStats {
  max: number;
  size: number;
  idle: number;
  in_use: number;
  /** the replicas of [database] read_url and their lag; absent without one */
  replicas?: ReplicaStatus[];
}

function dialectOf(driver: Driver): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => driver,
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

function toResult<R>(rows: R[], command: string | undefined, count: number | undefined): QueryResult<R> {
  const affects = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return affects ? { rows, numAffectedRows: BigInt(count ?? 0) } : { rows };
}

/**
 * Kysely over PGlite. PGlite is one connection in this process, so connections are handed
 * out one at a time: a transaction holds the lock until commit or rollback.
 */
export class PgliteDriver implements Driver {
  private queue: Promise<void> = Promise.resolve();
  private held = false;
  constructor(private readonly pg: PGlite) {}

  stats(): PoolStats {
    return { max: 1, size: 1, idle: this.held ? 0 : 1, in_use: this.held ? 1 : 0 };
  }

  async init(): Promise<void> {
    await this.pg.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const next = new Promise<void>((r) => {
      release = r;
    });
    const previous = this.queue;
    this.queue = previous.then(() => next);
    await previous;
    this.held = true;
    return new PgliteConnection(this.pg, () => {
      this.held = false;
      release();
    });
  }

  async beginTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('begin'));
  }
  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    (conn as PgliteConnection).release();
  }
  async destroy(): Promise<void> {
    await this.pg.close();
  }

  dialect(): Dialect {
    return dialectOf(this);
  }
}

class PgliteConnection implements DatabaseConnection {
  constructor(
    private readonly pg: PGlite,
    readonly release: () => void,
  ) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await fromDriverCall(this.pg.query<R>(query.sql, pgliteParams(query.parameters)));
    const command = query.sql.trimStart().split(/\s/, 1)[0]?.toUpperCase();
    return toResult(result.rows, command, result.affectedRows);
  }
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not used');
  }
}

/**
 * Parameters as PGlite must receive them. It sends a Date as its ISO text, which PostgreSQL reads
 * wrongly outside years 1-9999: ISO's year 0 is PostgreSQL's 1 BC, and a rule that steps back a
 * day from 0001-01-01 (a feed's window) made PGlite answer "date/time field value out of range"
 * where node-postgres, which writes BC itself, answers rows. Such a Date is written the server's way.
 */
export function pgliteParams(params: readonly unknown[]): unknown[] {
  return params.map((v) => (v instanceof Date ? pgliteDate(v) : v));
}

function pgliteDate(d: Date): Date | string {
  const year = d.getUTCFullYear();
  if (Number.isNaN(year) || (year >= 1 && year <= 9999)) return d;
  const iso = d.toISOString();
  const rest = iso.slice(iso.indexOf('-', 1)).replace('T', ' ').replace('Z', '+00');
  return year < 1 ? `${String(1 - year).padStart(4, '0')}${rest} BC` : `${year}${rest}`;
}
