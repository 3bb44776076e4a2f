import pg from 'pg';

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

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly timeoutMs: number,
  ) {}

  /** Resolves when the server answered in time; rejects (and drops its connection) otherwise. */
  async check(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SilentDatabaseError(this.timeoutMs)), this.timeoutMs);
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
      const client = new pg.Client(this.config);
      client.on('error', () => {});
      this.client = client;
      await client.connect();
    }
    await this.client.query('select 1');
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
