import { Kysely } from 'kysely';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PgliteDriver } from './drivers.js';
import type { Schema } from './schema.js';
import type { Database } from './database.types.js';
import { fromDriverCall } from './driver-errors.js';

/** PostgreSQL's bigint: read as a number, as the server's pool does. */
const INT8 = 20;

/**
 * The embedded database's memory (issue 25 item 17): PostgreSQL's default 128 MB of shared buffers
 * live in PGlite's WebAssembly memory, which never shrinks, and made most of the plane's RSS on a
 * fresh fleet. One process, one session and a small database need far less; the operating
 * system's page cache still holds the data files. Measured: PGlite alone 293 -> 167 MB at ready.
 */
const PGLITE_MEMORY = ['-c', 'shared_buffers=16MB', '-c', 'wal_buffers=1MB', '-c', 'temp_buffers=2MB'];

/** The embedded database (PGlite) in `dir`, in memory when null, or from a dump of another's folder. */
export async function openPglite(dir: string | null, dump?: Blob): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir) await mkdir(dir, { recursive: true });
  const start = async () => {
    const opened = new PGlite(dir ?? undefined, {
      parsers: { [INT8]: (v: string) => Number(v) },
      startParams: [...PGlite.defaultStartParams, ...PGLITE_MEMORY],
      loadDataDir: dump,
    });
    await opened.waitReady;
    return opened;
  };
  // Creating the cluster (initdb) grows PGlite's WebAssembly memory to ~570 MB, which it never
  // gives back: a new folder is created, closed and opened again, so the plane of a fresh fleet
  // runs in a memory of ordinary size (a folder in memory, for tests, cannot be reopened).
  // A cluster loaded from a dump ran no initdb here: nothing to shrink.
  const fresh = dir !== null && !dump && !existsSync(join(dir, 'PG_VERSION'));
  let pg = await start();
  if (fresh) {
    await pg.close();
    pg = await start();
  }
  const driver = new PgliteDriver(pg);
  const db = new Kysely<Schema>({ dialect: driver.dialect() });
  return {
    kind: 'pglite',
    db,
    async listen(channel, handler, onConnect) {
      const unsub = await pg.listen(channel, handler);
      onConnect?.();
      return async () => {
        await unsub();
      };
    },
    async withSession(fn) {
      // PGlite is a single session already; serialise with Kysely's users through a connection.
      return db.connection().execute(async () =>
        fn({
          exec: async (text) => {
            await fromDriverCall(pg.exec(text));
          },
          query: async <R>(text: string, params: unknown[] = []) =>
            (await fromDriverCall(pg.query<R>(text, params))).rows,
        }),
      );
    },
    poolStats: () => driver.stats(),
    cancel: async () => {},
    // In this process: there is no connection to go silent.
    heartbeat: async () => {},
    close: () => db.destroy(),
  };
}
