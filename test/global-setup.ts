import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/plane/db/database.js';
import { migrate } from '../src/plane/db/migrate.js';
import { chromiumPath } from './browser/chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The run's databases on the TEST_DATABASE_URL server, null without a server: `template` is
     * migrated and every test database is copied from it; `prefix` starts the name of each test
     * database, which the run drops at its end.
     */
    testDatabases: { template: string; prefix: string } | null;
    /**
     * Without a server: the file (under the OS temporary folder) holding the run's migrated
     * embedded database, a PGlite data-folder tarball each test file's in-memory database starts
     * from. Null on a server.
     */
    embeddedTemplate: string | null;
  }
}

// Drops at the end of the run, this many at once: each DROP DATABASE waits for a checkpoint, and
// checkpoints requested together are served by one.
const DROPS_AT_ONCE = 16;

/**
 * Runs the migrations once per run, into a template database: each test file's database is then a
 * file copy of it (`CREATE DATABASE ... TEMPLATE`), far cheaper than running every migration for
 * every plane the suite starts. Per run rather than kept: a migration edited between two runs is
 * always the one tested, and the shared server keeps no leftovers.
 *
 * The test databases are dropped here, together, rather than by each file as it ends: a DROP
 * DATABASE forces a checkpoint of the whole server (1-5 s on a busy one), which each file
 * would otherwise wait for, one after another.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // The browser files' Chromium, unpacked here once when the machine has none (test/browser/chromium.ts):
  // files starting together each unpacking it were handed one another's half-written file.
  await chromiumPath();
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    project.provide('testDatabases', null);
    return embeddedTemplate(project);
  }
  project.provide('embeddedTemplate', null);
  const run = randomBytes(5).toString('hex');
  const template = `argus_tpl_${run}`;
  const prefix = `argus_t_${run}_`;
  const admin = postgres(base, { max: DROPS_AT_ONCE, onnotice: () => {} });
  const teardown = async () => {
    const names = (await admin.unsafe('select datname from pg_database where starts_with(datname, $1)', [prefix])).map(
      (r) => r.datname as string,
    );
    await Promise.all(
      Array.from({ length: DROPS_AT_ONCE }, async () => {
        for (let name = names.pop(); name; name = names.pop())
          await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      }),
    );
    await admin.unsafe(`drop database if exists ${template} with (force)`).catch(() => {});
    await admin.end();
  };
  try {
    await admin.unsafe(`create database ${template}`);
    const u = new URL(base);
    u.pathname = `/${template}`;
    const database = await openDatabase({ kind: 'postgres', url: u.toString(), max: 1 });
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
    // PostgreSQL refuses to copy a database that has a session open on it: the migration's
    // connection must be gone, not just closing (Database.close() leaves a pool Kysely never
    // used open, as here, where only withSession ran).
    await admin.unsafe(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [template],
    );
    for (let i = 0; i < 100; i++) {
      const [{ n }] = await admin.unsafe('select count(*)::int as n from pg_stat_activity where datname = $1', [
        template,
      ]);
      if (n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (err) {
    await teardown();
    throw err;
  }
  project.provide('testDatabases', { template, prefix });
  return teardown;
}

/**
 * The embedded counterpart of the template database: one PGlite migrated once per run and dumped to
 * a file; each test file's database opens from that dump. Creating a cluster (initdb in WebAssembly,
 * ~14 s of CPU) and migrating it for every file made set-ups outlast their hooks on a busy machine;
 * loading the dump costs ~2 s. Migrated through openDatabase on a folder, as a plane does at start.
 */
async function embeddedTemplate(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'argus-pglite-tpl-'));
  const file = `${dir}.tar.gz`;
  const teardown = async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(file, { force: true });
  };
  try {
    const database = await openDatabase({ kind: 'pglite', dir });
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
    // Database keeps its PGlite to itself: the closed folder is opened again to be dumped.
    const { PGlite } = await import('@electric-sql/pglite');
    const pg = new PGlite(dir);
    try {
      // dumpDataDir does not wait for the start: without this the run ends silently, mid-set-up.
      await pg.waitReady;
      const dump = await pg.dumpDataDir('gzip');
      await writeFile(file, Buffer.from(await dump.arrayBuffer()));
    } finally {
      await pg.close();
    }
    await rm(dir, { recursive: true, force: true });
  } catch (err) {
    await teardown();
    throw err;
  }
  project.provide('embeddedTemplate', file);
  return teardown;
}
