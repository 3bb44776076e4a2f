import pg from 'pg';
import type { DatabaseHost } from './hosts.js';
import { ACCEPTS_WRITES_SQL, destroySocket } from './heartbeat.js';

/** None of the listed servers answered as one that takes writes (all down, or all standbys). */
export class NoPrimaryError extends Error {
  readonly code = 'NO_PRIMARY';
  constructor(hosts: string[]) {
    super(`none of the database servers ${hosts.join(', ')} accepts writes`);
  }
}

/**
 * Which of the servers of a several-host `[database] url` takes writes. Every connection of the
 * process (pool, LISTEN, heartbeat) is opened on `current`; after a failed heartbeat `locate` asks
 * every server and moves `current` to the writable one, so a promoted standby is followed without
 * a restart. It is PostgreSQL's replication that fails over; this only finds where it went.
 */
export class PrimaryLocator {
  private index = 0;
  private looking: Promise<DatabaseHost> | null = null;

  /** `onMove`: the primary changed; what was opened on the old one must go. */
  constructor(
    readonly hosts: readonly DatabaseHost[],
    private readonly config: pg.ClientConfig,
    private readonly timeoutMs: number,
    private readonly onMove: (from: DatabaseHost, to: DatabaseHost) => void,
  ) {}

  get current(): DatabaseHost {
    return this.hosts[this.index]!;
  }

  /**
   * Asks every server at once whether it takes writes and keeps the one that does. The current
   * one wins when several do (an old primary started again without being made a standby: it stays
   * where the plane already writes until an operator fences one of them). Calls made while a look
   * runs share it. Rejects with NoPrimaryError when none does.
   */
  locate(): Promise<DatabaseHost> {
    this.looking ??= this.look().finally(() => {
      this.looking = null;
    });
    return this.looking;
  }

  private async look(): Promise<DatabaseHost> {
    const answers = await Promise.all(this.hosts.map((h) => this.acceptsWrites(h)));
    const found = answers[this.index] ? this.index : answers.indexOf(true);
    if (found < 0) throw new NoPrimaryError(this.hosts.map((h) => h.name));
    if (found !== this.index) {
      const from = this.current;
      this.index = found;
      this.onMove(from, this.current);
    }
    return this.current;
  }

  /** One short-lived connection to `host`; false when it does not answer in time or is read-only. */
  private async acceptsWrites(host: DatabaseHost): Promise<boolean> {
    const client = new pg.Client({ ...this.config, connectionString: host.url });
    client.on('error', () => {});
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.timeoutMs);
    });
    let answered = false;
    const ask = (async () => {
      await client.connect();
      const r = await client.query<{ writable: boolean }>(ACCEPTS_WRITES_SQL);
      answered = true;
      return r.rows[0]?.writable === true;
    })().catch(() => false);
    try {
      return await Promise.race([ask, late]);
    } finally {
      clearTimeout(timer);
      // No goodbye to a server that did not answer in time: it would not read it either.
      if (answered) void client.end().catch(() => {});
      else destroySocket(client);
    }
  }
}
