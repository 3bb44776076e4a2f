import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createHash } from 'node:crypto';
import type { Database, NotifyHandler } from './database.types.js';
import type { Schema } from './schema.js';
import { openPglite } from './pglite.js';
import { driverError, fromDriverCall } from './driver-errors.js';
import { destroySocket, Heartbeat, isPoolWaitTimeout, processIdOf } from './heartbeat.js';
import { parseDatabaseHosts } from './hosts.js';
import { PrimaryLocator } from './primary-locator.js';
import { openReplicas, primaryReads } from './replicas.js';
import { systemClock, type Clock } from '../../common/clock.js';

export type DatabaseTarget =
  | {
      kind: 'postgres';
      url: string;
      max?: number;
      connectTimeoutSecs?: number;
      poolWaitMs?: number;
      /** [database] read_url and max_read_lag_secs: hot standbys for reads that may lag (replicas.ts) */
      read?: { url: string; maxLagSecs: number };
      /** the clock of the replicas' lag checks */
      clock?: Clock;
    }
  // `dump`: a tarball of PGlite's data folder (PGlite's dumpDataDir) to start from instead of a new
  // cluster. The test suite migrates one database per run and opens each file's copy of it, as it
  // copies a template on a server: initdb in WebAssembly is most of the cost of an embedded database.
  | { kind: 'pglite'; dir: string | null; dump?: Blob };

export type { Database, Db } from './database.types.js';

const INT8 = 20;
/** How long a query may wait for a connection of a busy pool before its request answers 503 db_busy. */
const POOL_WAIT_MS = 10_000;

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  return target.kind === 'postgres' ? openPostgres(target) : openPglite(target.dir, target.dump);
}

function openPostgres(target: Extract<DatabaseTarget, { kind: 'postgres' }>): Database {
  const max = target.max ?? 10;
  // node-postgres rather than postgres.js: postgres.js 3.4.x can throw from a setImmediate
  // after a socket dies (an uncatchable TypeError that ends the process) and can leave a
  // reserved or pooled connection unable to write again (porsager/postgres#1154, #1208).
  const connectionTimeoutMillis = (target.connectTimeoutSecs ?? 2) * 1000;
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8
        ? (v: string) => Number(v)
        : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
  };
  // Every connection of the process (pool, LISTEN, heartbeat) alike; the heartbeat ends cut
  // sessions on the server by this application_name.
  const hosts = parseDatabaseHosts(target.url);
  const clientConfig: pg.ClientConfig = {
    connectionString: hosts[0]!.url,
    connectionTimeoutMillis,
    application_name: 'argus-plane',
    types,
  };
  // Several servers listed: every connection is opened on the one that takes writes, and a failed
  // heartbeat looks for it again (a standby promoted after the primary was lost).
  const locator =
    hosts.length > 1
      ? new PrimaryLocator(hosts, clientConfig, connectionTimeoutMillis, () => {
          // What was opened on the old primary goes; orphans there are not this server's to end.
          orphans.length = 0;
          for (const c of clients) destroySocket(c);
          listener.sever();
          heartbeat.drop();
        })
      : null;
  const Client = locator ? onCurrentPrimary(locator) : pg.Client;
  const pool = new pg.Pool({
    ...clientConfig,
    ...(locator ? { Client: Client as unknown as pg.PoolConfig['Client'] } : {}),
    max,
    // Short connect time-out: while the server is away a request should fail fast with
    // db_unavailable instead of hanging, and a returning server is found within the probe interval.
    idleTimeoutMillis: 60_000,
    maxLifetimeSeconds: 60 * 30,
  });
  // A connection that dies while idle, or while checked out between two queries, emits
  // 'error': without a listener that would end the process. The failure reaches the next
  // query on it as a connection error (503), and the pool drops the client on release.
  pool.on('error', () => {});
  // Every connection of the pool, so a silenced server's sockets can all be cut at once.
  const clients = new Set<pg.PoolClient>();
  pool.on('connect', (client) => {
    client.on('error', () => {});
    clients.add(client);
  });
  pool.on('remove', (client) => {
    clients.delete(client);
  });
  // Set by a failed heartbeat until one succeeds: meanwhile a query fails at once as a lost
  // connection instead of waiting out a connect time-out on a server that does not answer.
  const silence = { since: null as Error | null };
  const orphans: number[] = [];
  const poolWaitMs = target.poolWaitMs ?? POOL_WAIT_MS;
  const primaryPool = preparingPool(pool, silence, poolWaitMs);
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: primaryPool }) });
  // A replica is never silenced with the primary: its own lag check skips it when it goes quiet.
  const reads = target.read
    ? openReplicas(target.read.url, target.read.maxLagSecs, {
        clientConfig,
        max,
        clock: target.clock ?? systemClock,
        wrap: (p) => preparingPool(p, { since: null }, poolWaitMs),
        primary: primaryPool,
        primaryDb: db,
      })
    : primaryReads(db);
  const listener = new PgListener(clientConfig, Client);
  const heartbeat = new Heartbeat(
    clientConfig,
    connectionTimeoutMillis,
    Client,
    locator ? () => locator.current.name : undefined,
  );
  return {
    kind: 'postgres',
    db,
    reads,
    listen: (channel, handler, onConnect) => listener.listen(channel, handler, onConnect),
    async withSession(fn) {
      const client = await fromDriverCall(pool.connect());
      let failed: Error | undefined;
      try {
        return await fn({
          exec: async (text) => {
            await fromDriverCall(client.query(text));
          },
          query: async <R>(text: string, params: unknown[] = []) =>
            (await fromDriverCall(client.query(text, params))).rows as R[],
        });
      } catch (err) {
        failed = err as Error;
        throw err;
      } finally {
        // A session that failed may hold a lock or a broken socket: drop it rather than reuse it.
        client.release(failed);
      }
    },
    poolStats: () => ({
      max,
      size: pool.totalCount,
      idle: pool.idleCount,
      in_use: Math.max(0, pool.totalCount - pool.idleCount),
      ...(reads.replicated ? { replicas: reads.status() } : {}),
    }),
    async cancel(pid) {
      const client = new Client(clientConfig);
      client.on('error', () => {});
      try {
        await client.connect();
        // Only a statement still running in a session of this plane (the id may have been reused).
        await client.query(
          `select pg_cancel_backend(pid) from pg_stat_activity
          where pid = $1 and application_name = $2 and state = 'active' and pid <> pg_backend_pid()`,
          [pid, clientConfig.application_name],
        );
      } finally {
        await client.end().catch(() => {});
      }
    },
    async heartbeat() {
      try {
        await heartbeat.check();
        // The sessions cut while the server was silent still live there, in their transactions and
        // holding their locks (the goodbye never reached it): end them before the pool reopens, or
        // the new connections queue behind them until the server notices the dead peers, hours later.
        if (orphans.length) await heartbeat.terminate(orphans.splice(0));
        silence.since = null;
      } catch (err) {
        if (!silence.since) {
          silence.since = err as Error;
          for (const c of clients) {
            orphans.push(processIdOf(c));
            destroySocket(c);
          }
          orphans.push(...listener.sever());
        }
        // The next probe's heartbeat opens on whichever server takes writes now, if one does.
        if (locator) await locator.locate().catch(() => {});
        throw driverError(err);
      }
    },
    async close() {
      heartbeat.drop();
      await reads.close();
      await listener.close();
      await db.destroy();
      // Kysely ends the pool only if it ever ran a query; a process that only used withSession
      // (migrations) would otherwise keep its connections open.
      if (!pool.ended) await pool.end();
    },
  };
}

/** node-postgres's client, opened on the server the locator holds for the primary when it is made. */
function onCurrentPrimary(locator: PrimaryLocator): typeof pg.Client {
  return class extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super({ ...(typeof config === 'string' ? {} : config), connectionString: locator.current.url });
    }
  };
}

// Named statements kept per connection at most; past that, queries are sent unnamed.
const PREPARED_PER_CONNECTION = 256;
const prepared = new WeakMap<pg.PoolClient, { names: Set<string>; generation: Map<string, number> }>();

/**
 * The pool as Kysely sees it: every query runs as a named prepared statement
 * of its connection, so the server plans it once per connection instead of on every call.
 * On the partitioned audit table planning cost more than running the page query itself.
 */
function preparingPool(pool: pg.Pool, silence: { since: Error | null }, poolWaitMs: number) {
  const prepare = (client: pg.PoolClient) => {
    if (prepared.has(client)) return;
    const state = { names: new Set<string>(), generation: new Map<string, number>() };
    prepared.set(client, state);
    type AnyQuery = (...args: unknown[]) => unknown;
    const query = client.query.bind(client) as AnyQuery;
    (client as unknown as { query: AnyQuery }).query = (text: unknown, values?: unknown, cb?: unknown) => {
      // Statements without parameters too (a first audit page has none), except a script of
      // several statements, which the extended protocol cannot prepare.
      if (typeof cb === 'function') return query(text, values, cb);
      if (typeof text !== 'string' || !Array.isArray(values) || text.includes(';'))
        return markRejection(query(text, values));
      const hash = createHash('sha1').update(text).digest('hex').slice(0, 24);
      const gen = state.generation.get(hash);
      const name = gen ? `k${hash}_${gen}` : `k${hash}`;
      if (!state.names.has(name)) {
        if (state.names.size >= PREPARED_PER_CONNECTION) return markRejection(query(text, values));
        state.names.add(name);
      }
      return (query({ name, text, values }) as Promise<unknown>).catch((err: { code?: string }) => {
        // A table changed under the statement (another process migrated): the next call
        // prepares it afresh under a new name instead of failing until the connection goes.
        if (err?.code === '0A000') state.generation.set(hash, (gen ?? 0) + 1);
        throw driverError(err);
      });
    };
  };
  return {
    async connect() {
      // A wait for a busy pool is not a lost server (the heartbeat watches the server on a
      // connection of its own): it waits on, within a bound, while the server answers.
      const deadline = performance.now() + poolWaitMs;
      for (;;) {
        // Refused as the driver's own failure: the health counts it as a lost database.
        if (silence.since) throw driverError(silence.since);
        try {
          const client = await fromDriverCall(pool.connect());
          prepare(client);
          return client;
        } catch (err) {
          if (!isPoolWaitTimeout(err) || performance.now() >= deadline) throw err;
        }
      }
    },
    end: () => pool.end(),
  };
}

/** A query's result: a promise (its rejection marked as the driver's) or, for a Cursor, as is. */
function markRejection(result: unknown): unknown {
  return result instanceof Promise ? fromDriverCall(result) : result;
}

/**
 * One LISTEN connection for every channel of the process. When it drops, it reconnects
 * every `retryMs`, LISTENs again and runs each `onConnect` so subscribers catch up.
 */
class PgListener {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private readonly channels = new Map<string, Array<{ handler: NotifyHandler; onConnect?: () => void }>>();
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  // LISTEN/UNLISTEN statements one after another: a pg client must not run two queries at once.
  private statements: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly Client: typeof pg.Client,
    private readonly retryMs = 250,
  ) {}

  private run(client: pg.Client, text: string): Promise<unknown> {
    const next = this.statements.then(() => client.query(text));
    this.statements = next.catch(() => {});
    return next;
  }

  async listen(channel: string, handler: NotifyHandler, onConnect?: () => void): Promise<() => Promise<void>> {
    const client = await this.connect();
    await this.run(client, `listen ${pg.escapeIdentifier(channel)}`);
    const entry = { handler, onConnect };
    const list = this.channels.get(channel) ?? [];
    list.push(entry);
    this.channels.set(channel, list);
    onConnect?.();
    return async () => {
      const l = this.channels.get(channel);
      if (!l) return;
      l.splice(l.indexOf(entry) >>> 0, 1);
      if (!l.length) {
        this.channels.delete(channel);
        if (this.client) await this.run(this.client, `unlisten ${pg.escapeIdentifier(channel)}`).catch(() => {});
      }
    };
  }

  private connect(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('database closed'));
    if (this.client) return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
    const client = new this.Client(this.config);
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => {});
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (msg) => {
      for (const e of this.channels.get(msg.channel) ?? []) e.handler(msg.payload ?? '');
    });
    this.connecting = client.connect().then(
      () => {
        this.connecting = null;
        if (lost || this.closed) {
          client.end().catch(() => {});
          throw new Error('listen connection lost');
        }
        this.client = client;
        return client;
      },
      (err) => {
        this.connecting = null;
        lost = true;
        client.end().catch(() => {});
        throw err;
      },
    );
    return this.connecting;
  }

  /** After a loss: reconnect, LISTEN to every channel again, then let subscribers catch up. */
  private scheduleReconnect(): void {
    if (this.closed || this.retry || this.channels.size === 0) return;
    this.retry = setTimeout(async () => {
      this.retry = null;
      try {
        const client = await this.connect();
        for (const channel of this.channels.keys()) await this.run(client, `listen ${pg.escapeIdentifier(channel)}`);
        for (const list of this.channels.values()) for (const e of list) e.onConnect?.();
      } catch {
        this.client?.end().catch(() => {});
        this.client = null;
        this.scheduleReconnect();
      }
    }, this.retryMs);
    this.retry.unref();
  }

  /**
   * Cuts the LISTEN connection; it reconnects and its subscribers catch up as after any loss.
   * Returns the server process id of the session it cut.
   */
  sever(): number[] {
    const c = this.client;
    if (!c) return [];
    destroySocket(c);
    return [processIdOf(c)];
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => {});
  }
}
