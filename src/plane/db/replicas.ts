import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Clock } from '../../common/clock.js';
import type { Db, ReadRoute } from './database.types.js';
import type { Schema } from './schema.js';
import { parseDatabaseHosts, type DatabaseHost } from './hosts.js';
import { destroySocket } from './heartbeat.js';

/** Reads that may lag read the primary too: no read_url, or the embedded database. */
export function primaryReads(db: Db): ReadRoute {
  return {
    db,
    replicated: false,
    pin: () => null,
    primaryLsn: () => lsnOf(db),
    status: () => [],
    cancel: async () => {},
    jobs: () => [],
    close: async () => {},
  };
}

/** What a replica pool is built like: the primary's pool settings and its (preparing) pool wrapper. */
interface ReplicaPoolParts {
  clientConfig: pg.ClientConfig;
  max: number;
  /** the pool wrapper Kysely gets (database.ts preparingPool: named statements, busy-pool waits) */
  wrap(pool: pg.Pool): KyselyPool;
  /** the primary's wrapped pool: where a read goes when no replica is in use */
  primary: KyselyPool;
  primaryDb: Db;
  /** the lag checks' clock (the freshness of a check) */
  clock: Clock;
}

type KyselyPool = { connect(): Promise<pg.PoolClient>; end(): Promise<void> };

/** The application_name of replica sessions: the cancel of a replica's statement looks for it. */
const READ_APPLICATION = 'argus-plane-read';
const CHECK_EVERY_MS = 1000;
/** A check older than this many intervals no longer vouches for its replica (a check that hangs). */
const STALE_CHECKS = 3;

interface Replica {
  host: DatabaseHost;
  pool: pg.Pool;
  kpool: KyselyPool;
  db: Db;
  lagSecs: number | null;
  replayed: bigint;
  checkedAt: number;
  used: boolean;
  checker: pg.Client | null;
}

/**
 * The replicas of a `[database] read_url` (one host or several, like `url`), each with a pool of
 * its own, and the route reads take through them. Every second each replica is asked how far
 * behind it is; one that does not answer, answers late, or lags more than `maxLagSecs` is skipped
 * until a check finds it back: its reads go to the primary, and nothing fails for it.
 */
export function openReplicas(readUrl: string, maxLagSecs: number, parts: ReplicaPoolParts): ReadRoute {
  const replicas: Replica[] = parseDatabaseHosts(readUrl).map((host) => {
    const pool = new pg.Pool({
      ...parts.clientConfig,
      connectionString: host.url,
      application_name: READ_APPLICATION,
      max: parts.max,
      idleTimeoutMillis: 60_000,
      maxLifetimeSeconds: 60 * 30,
    });
    // A replica restarting must never end the process: its idle connections die with it.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const kpool = parts.wrap(pool);
    const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: { ...kpool, end: async () => {} } }) });
    return { host, pool, kpool, db, lagSecs: null, replayed: 0n, checkedAt: 0, used: false, checker: null };
  });
  let turn = 0;
  const now = () => parts.clock.now();
  // Primary positions of recent checks: a replica that replayed past one was at most that old.
  const history: Array<{ at: number; lsn: bigint }> = [];
  // A check from the future (the wall clock stepped back since) is as unknown as a stale one: the
  // replica waits for the next check, at most CHECK_EVERY_MS, and its reads take the primary meanwhile.
  const inUse = () => {
    const t = now();
    return replicas.filter((r) => r.used && t >= r.checkedAt && t - r.checkedAt <= STALE_CHECKS * CHECK_EVERY_MS);
  };
  const next = (): Replica | null => {
    const list = inUse();
    return list.length ? list[turn++ % list.length]! : null;
  };
  const routed: KyselyPool = {
    async connect() {
      const r = next();
      if (!r) return parts.primary.connect();
      try {
        return await r.kpool.connect();
      } catch {
        // Gone since its last check: skipped until a check finds it back; this read takes the primary.
        r.used = false;
        return parts.primary.connect();
      }
    },
    end: async () => {},
  };

  const check = async (r: Replica, primary: bigint | null): Promise<void> => {
    try {
      r.checker ??= await connectChecker(r.host, parts.clientConfig);
      const res = await r.checker.query<{ caught_up: boolean; lag: number | null; replayed: string }>(CHECK_SQL);
      const row = res.rows[0]!;
      const replayed = parseLsn(row.replayed);
      // Caught up with what it received, and with the primary as of this check when that answered:
      // a replica cut from its primary has replayed all it received, and is behind all the same.
      const caughtUp = row.caught_up && (primary === null || replayed >= primary);
      let lag = caughtUp ? 0 : row.lag === null ? null : Math.max(0, Number(row.lag));
      // The time since its last replayed commit overstates it when only other WAL (a checkpoint)
      // is unreplayed: it is at most as far behind as the newest check whose position it passed.
      const passed = history.findLast((h) => h.lsn <= replayed);
      const t = now();
      if (!caughtUp && passed && t >= passed.at) lag = Math.min(lag ?? Infinity, (t - passed.at) / 1000);
      r.lagSecs = lag === null ? null : Math.round(lag * 1000) / 1000;
      r.replayed = replayed;
      r.checkedAt = now();
      r.used = r.lagSecs !== null && r.lagSecs <= maxLagSecs;
    } catch {
      if (r.checker) destroySocket(r.checker);
      r.checker = null;
      r.lagSecs = null;
      r.used = false;
    }
  };

  return {
    db: new Kysely<Schema>({ dialect: new PostgresDialect({ pool: routed }) }),
    replicated: true,
    pin() {
      const r = next();
      return r ? { db: r.db, replayed: r.replayed } : null;
    },
    primaryLsn: () => lsnOf(parts.primaryDb),
    status: () => {
      const used = new Set(inUse());
      return replicas.map((r) => ({ host: r.host.name, lag_secs: r.lagSecs, used: used.has(r) }));
    },
    async cancel(pid) {
      await Promise.all(replicas.map((r) => cancelOn(r.host, parts.clientConfig, pid).catch(() => {})));
    },
    jobs() {
      return [
        {
          name: 'db.replica_lag',
          everyMs: CHECK_EVERY_MS,
          budgetMs: CHECK_EVERY_MS * STALE_CHECKS,
          fixedRate: true,
          run: async () => {
            const at = now();
            // Positions timed before a step back of the clock would make lags negative: forgotten.
            if (history.length && at < history[history.length - 1]!.at) history.length = 0;
            const primary = await lsnOf(parts.primaryDb).catch(() => null);
            if (primary !== null) {
              history.push({ at, lsn: primary });
              if (history.length > 64) history.shift();
            }
            await Promise.all(replicas.map((r) => check(r, primary)));
          },
        },
      ];
    },
    async close() {
      for (const r of replicas) {
        if (r.checker) await r.checker.end().catch(() => {});
        await r.db.destroy().catch(() => {});
        if (!r.pool.ended) await r.pool.end().catch(() => {});
      }
    },
  };
}

// On a standby: whether it has replayed all it received, the time since the commit it replayed
// last (null before its first), and how far it has replayed. A server that is not in recovery
// (a replica promoted) is caught up by definition.
const CHECK_SQL = `select
  case when pg_is_in_recovery() then coalesce(pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn(), false)
       else true end as caught_up,
  extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as lag,
  (case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end)::text as replayed`;

async function connectChecker(host: DatabaseHost, config: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client({
    ...config,
    connectionString: host.url,
    application_name: READ_APPLICATION,
    // A check that hangs must not hold its replica in use: it fails, and the replica is skipped.
    query_timeout: CHECK_EVERY_MS * 2,
  });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    destroySocket(client);
    throw err;
  }
  return client;
}

async function cancelOn(host: DatabaseHost, config: pg.ClientConfig, pid: number): Promise<void> {
  const client = new pg.Client({ ...config, connectionString: host.url, application_name: READ_APPLICATION });
  client.on('error', () => {});
  try {
    await client.connect();
    // Only a statement still running in a read session of this plane (the id may have been reused).
    await client.query(
      `select pg_cancel_backend(pid) from pg_stat_activity
       where pid = $1 and application_name = $2 and state = 'active' and pid <> pg_backend_pid()`,
      [pid, READ_APPLICATION],
    );
  } finally {
    await client.end().catch(() => {});
  }
}

async function lsnOf(db: Db): Promise<bigint> {
  const r = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(db);
  return parseLsn(r.rows[0]!.lsn);
}

/** A WAL position as PostgreSQL writes it (`16/B374D848`) as a number that compares. */
function parseLsn(text: string | null): bigint {
  if (!text) return 0n;
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}
