import pg from 'pg';

/**
 * Whether a server takes writes: not a standby replaying WAL, and not a primary set read-only.
 * libpq's target_session_attrs=read-write asks the same.
 */
export const ACCEPTS_WRITES_SQL =
  "select not (pg_is_in_recovery() or current_setting('transaction_read_only')::bool) as writable";

/** SQLSTATE read_only_sql_transaction: what a standby answers to a write. */
export const READ_ONLY_SQL_TRANSACTION = '25006';

/**
 * The server the plane was writing to answers, but no longer takes writes (it was demoted, or a
 * standby was listed first). Carries 25006 as a write refused there would: a lost database (503).
 */
export class ReadOnlyServerError extends Error {
  readonly code = READ_ONLY_SQL_TRANSACTION;
  constructor(host: string) {
    super(`the database server ${host} does not accept writes`);
  }
}

/** The error of a heartbeat that got no answer: the health treats it as a lost database. */
export class SilentDatabaseError extends Error {
  readonly code = 'HEARTBEAT_TIMEOUT';
  constructor(ms: number) {
    super(`the database did not answer a heartbeat within ${ms} ms`);
  }
}

/**
 * A trivial query on a connection of its own, outside the pool: a pool saturated by slow but
 * legitimate work must not pass for a dead server. A connection that a firewall or a lost NAT
 * entry has silenced never errors by itself (no reset, no close, TCP keeps it open), so a query
 * on it would wait forever; the heartbeat is what notices, within `timeoutMs`.
 */
export class Heartbeat {
  private client: pg.Client | null = null;

  /**
   * `Client`: the class every connection of the process is opened with (on the current primary when
   * the url lists several servers). `host`: set then, the server the heartbeat must find writable,
   * or a demoted primary would pass for a live one.
   */
  constructor(
    private readonly config: pg.ClientConfig,
    private readonly timeoutMs: number,
    private readonly Client: typeof pg.Client = pg.Client,
    private readonly host?: () => string,
  ) {}

  /** Resolves when the server answered in time; rejects (and drops its connection) otherwise. */
  async check(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_, reject) => {
      // The verdict waits one turn of the event loop past the timer: when this process itself was
      // stalled (CPU starved, a long synchronous task), the timer and the server's answer are both
      // due at once, and timers run before sockets are read. A reply already received is not silence.
      timer = setTimeout(() => setImmediate(() => reject(new SilentDatabaseError(this.timeoutMs))), this.timeoutMs);
    });
    try {
      await Promise.race([this.ask(), silent]);
    } catch (err) {
      this.drop();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async ask(): Promise<void> {
    if (!this.client) {
      const client = new this.Client(this.config);
      client.on('error', () => {});
      this.client = client;
      await client.connect();
    }
    if (!this.host) {
      await this.client.query('select 1');
      return;
    }
    const r = await this.client.query<{ writable: boolean }>(ACCEPTS_WRITES_SQL);
    if (r.rows[0]?.writable !== true) throw new ReadOnlyServerError(this.host());
  }

  /**
   * Ends the given server sessions, if they are still the plane's (a process id may have been
   * reused by then). Sessions of the same role may be ended without any further privilege.
   */
  async terminate(pids: number[]): Promise<void> {
    const live = pids.filter((p) => p > 0);
    if (!live.length || !this.client) return;
    await this.client.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where pid = any($1::int[]) and application_name = $2 and pid <> pg_backend_pid()`,
      [live, this.config.application_name ?? ''],
    );
  }

  drop(): void {
    const c = this.client;
    this.client = null;
    if (c) destroySocket(c);
  }
}

/** Ends a connection at once, without the goodbye a silent server would never read. */
export function destroySocket(client: pg.Client | pg.PoolClient): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
  stream?.destroy();
}

/** The server process of a connection (from its start-up handshake); 0 when it never connected. */
export function processIdOf(client: pg.Client | pg.PoolClient): number {
  return (client as unknown as { processID?: number }).processID ?? 0;
}

/**
 * node-postgres's pool gave up waiting for one of its connections to come free (every one busy
 * for the connect time-out): the server answers, the pool is saturated. A connect that fails
 * says "Connection terminated due to connection timeout" instead.
 */
export function isPoolWaitTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === 'timeout exceeded when trying to connect';
}
