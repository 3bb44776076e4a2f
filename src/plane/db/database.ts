import { Kysely } from 'kysely';
import postgres, { type Sql } from 'postgres';
import { mkdir } from 'node:fs/promises';
import { PostgresJsDriver, PgliteDriver, type PoolStats } from './drivers.js';
import type { Schema } from './schema.js';

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
  /** LISTEN on a channel; `onConnect` runs after every (re)connection so a listener can catch up. */
  listen(channel: string, handler: NotifyHandler, onConnect?: () => void): Promise<() => Promise<void>>;
  withSession<T>(fn: (s: RawSession) => Promise<T>): Promise<T>;
  poolStats(): PoolStats;
  close(): Promise<void>;
}

export type DatabaseTarget =
  | { kind: 'postgres'; url: string; max?: number; connectTimeoutSecs?: number }
  | { kind: 'pglite'; dir: string | null };

const INT8 = 20;

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  return target.kind === 'postgres' ? openPostgres(target) : openPglite(target.dir);
}

function openPostgres(target: { url: string; max?: number; connectTimeoutSecs?: number }): Database {
  const max = target.max ?? 10;
  let driver: PostgresJsDriver | undefined;
  const sql: Sql = postgres(target.url, {
    max,
    // Short: while the server is away a request should fail fast with db_unavailable
    // instead of hanging, and a returning server is found within the probe interval.
    connect_timeout: target.connectTimeoutSecs ?? 2,
    idle_timeout: 60,
    max_lifetime: 60 * 30,
    onnotice: () => {},
    onclose: () => driver?.connectionClosed(),
    types: { int8: { to: INT8, from: [INT8], serialize: (v: number) => String(v), parse: (v: string) => Number(v) } } as any,
    connection: { application_name: 'argus-plane' },
  });
  driver = new PostgresJsDriver(sql, max);
  const db = new Kysely<Schema>({ dialect: driver.dialect() });
  return {
    kind: 'postgres',
    db,
    async listen(channel, handler, onConnect) {
      const sub = await sql.listen(channel, handler, onConnect);
      return async () => { await sub.unlisten().catch(() => {}); };
    },
    async withSession(fn) {
      const reserved = await sql.reserve();
      try {
        return await fn({
          exec: async (text) => { await reserved.unsafe(text).simple(); },
          query: async (text, params = []) => Array.from(await reserved.unsafe(text, params as any[])) as any,
        });
      } finally {
        reserved.release();
      }
    },
    poolStats: () => driver!.stats(),
    close: () => db.destroy(),
  };
}

async function openPglite(dir: string | null): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir) await mkdir(dir, { recursive: true });
  const pg = new PGlite(dir ?? undefined, { parsers: { [INT8]: (v: string) => Number(v) } });
  await pg.waitReady;
  const driver = new PgliteDriver(pg);
  const db = new Kysely<Schema>({ dialect: driver.dialect() });
  return {
    kind: 'pglite',
    db,
    async listen(channel, handler, onConnect) {
      const unsub = await pg.listen(channel, handler);
      onConnect?.();
      return async () => { await unsub(); };
    },
    async withSession(fn) {
      // PGlite is a single session already; serialise with Kysely's users through a connection.
      return db.connection().execute(async () => fn({
        exec: async (text) => { await pg.exec(text); },
        query: async (text, params = []) => (await pg.query(text, params as any[])).rows as any,
      }));
    },
    poolStats: () => driver.stats(),
    close: () => db.destroy(),
  };
}
