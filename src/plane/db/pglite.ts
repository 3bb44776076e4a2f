import { Kysely } from 'kysely';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { PgliteDriver, pgliteParams } from './drivers.js';
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
  // V8's optimising compiler (TurboFan) keeps ~85 MB of machine code for PGlite's WebAssembly,
  // more than the database's own memory on a fresh fleet; the baseline compiler alone costs
  // 10-25% of query time (measured with 3000 inserts and 300 searches; docs/hardening.md item 17).
  // The plane's embedded database is for small fleets, so an on-disk cluster takes the memory.
  // Set before PGlite's module is compiled; the plane compiles no other WebAssembly.
  if (dir !== null) setFlagsFromString('--liftoff-only');
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
  // Creating the cluster (initdb) grows PGlite's WebAssembly memory to ~570 MB, and neither closing
  // that instance nor a worker thread gives it back to the system (measured: 210 MB stay). A new
  // folder is therefore created by a short-lived child process, and this process opens a cluster
  // that exists, in a memory of ordinary size. A folder in memory (tests) or loaded from a dump
  // runs no initdb here: nothing to shrink.
  if (dir !== null && !dump && !existsSync(join(dir, 'PG_VERSION'))) await createCluster(dir);
  const pg = await start();
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
            (await fromDriverCall(pg.query<R>(text, pgliteParams(params)))).rows,
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

/**
 * Runs PGlite's initdb on `dir` in a child process of the same Node and closes it; the plane then
 * opens the folder as an existing cluster. The child's code is a string, so it runs the same way
 * from dist/ and from the sources under test.
 */
async function createCluster(dir: string): Promise<void> {
  const pglite = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  const code = [
    'const [mod, dir, ...params] = process.argv.slice(1);',
    'import(mod).then(async ({ PGlite }) => {',
    '  const pg = new PGlite(dir, { startParams: [...PGlite.defaultStartParams, ...params] });',
    '  await pg.waitReady;',
    '  await pg.close();',
    '});',
  ].join('\n');
  try {
    await promisify(execFile)(process.execPath, ['-e', code, pglite, dir, ...PGLITE_MEMORY], {
      // A bound for a hung child only: initdb in WebAssembly took past 120 s on a loaded two-core
      // machine (issue 25's fresh-machine run), so the bound is far past any slow start.
      timeout: 600_000,
      maxBuffer: 1 << 20,
    });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`creating the embedded database in ${dir} failed: ${(err.stderr || err.message).trim()}`, {
      cause: e,
    });
  }
}
