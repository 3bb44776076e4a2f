import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/plane/db/database.js';
import { parsePlaneConfig, type PlaneConfig } from '../../src/plane/config/config.js';
import { buildApp, makeLogger, type Plane } from '../../src/plane/app.js';
import { ManualClock, systemClock, type Clock } from '../../src/common/clock.js';
import type { EvidenceStorage } from '../../src/plane/evidence/evidence.storage.js';

/** Secrets of the test suite carry this mark; a test greps logs and bodies for it. */
export const CANARY = 'CANARY7f3';
export const ROOT = { login: 'root', password: `root-${CANARY}-pass` };
/** The fixed key that encrypts stored node secrets in tests (32 bytes). */
export const TEST_SECRET_KEY = new Uint8Array(32).fill(7);

export interface TestDb {
  database: Database;
  url: string | null;
  drop(): Promise<void>;
}

/** This run's template and name prefix (test/global-setup.ts), or null when the run has none. */
function runDatabases(): { template: string; prefix: string } | null {
  try {
    return inject('testDatabases') ?? null;
  } catch {
    return null;
  }
}

// The run's embedded template, read once per worker (workers keep modules from file to file).
let embeddedDump: Promise<Blob | null> | null = null;
function embeddedTemplate(): Promise<Blob | null> {
  embeddedDump ??= (async () => {
    let file: string | null = null;
    try {
      file = inject('embeddedTemplate') ?? null;
    } catch {
      /* outside a vitest run */
    }
    return file ? new Blob([await readFile(file)]) : null;
  })();
  return embeddedDump;
}

/**
 * A fresh database: a new one on the TEST_DATABASE_URL server, else an in-memory PGlite. Either is
 * a copy of the run's migrated template (a server's template database, or the embedded dump of
 * test/global-setup.ts), so a plane starting on it finds every migration applied; `migrated: false`
 * gives an empty one (for tests of the migrations themselves).
 * `drop()` closes it; the run drops its databases at its end (a drop waits for a checkpoint).
 */
export async function freshDatabase(opts: { migrated?: boolean } = {}): Promise<TestDb> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    const dump = opts.migrated === false ? null : await embeddedTemplate();
    const database = await openDatabase({ kind: 'pglite', dir: null, dump: dump ?? undefined });
    return { database, url: null, drop: () => database.close() };
  }
  const run = runDatabases();
  const name = `${run?.prefix ?? 'argus_t_'}${randomBytes(6).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await createDatabase(admin, name, opts.migrated === false ? null : (run?.template ?? null));
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  const database = await openDatabase({ kind: 'postgres', url });
  return {
    database,
    url,
    async drop() {
      await database.close().catch(() => {});
      if (!run) await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    },
  };
}

async function createDatabase(admin: postgres.Sql, name: string, template: string | null): Promise<void> {
  if (!template) {
    await admin.unsafe(`create database ${name}`);
    return;
  }
  // Two copies of one template starting at the same instant can collide (55006, "source
  // database is being accessed by other users"): a short retry rides over that.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.unsafe(`create database ${name} template ${template}`);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '55006' || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
    }
  }
}

export function testConfig(over: Partial<PlaneConfig> = {}): PlaneConfig {
  const base = parsePlaneConfig({ text: '', configFile: null, env: {}, dataDir: '/tmp/argus-test' });
  // No background polling of the (fake) nodes other tests register; sweeper tests drive it themselves.
  return { ...base, bootstrap: ROOT, sweeper: { ...base.sweeper, enabled: false }, ...over };
}

/** Captures everything the plane logs, so tests can look for leaked secrets. */
export class LogCapture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

export interface TestPlane {
  plane: Plane;
  db: TestDb;
  clock: Clock;
  logs: LogCapture;
  close(): Promise<void>;
}

export async function startPlane(
  opts: {
    config?: Partial<PlaneConfig>;
    clock?: Clock;
    db?: TestDb;
    evidenceStorage?: EvidenceStorage;
    settingsLockWaitMs?: number;
    consoleRoot?: string;
  } = {},
): Promise<TestPlane> {
  const db = opts.db ?? (await freshDatabase());
  const logs = new LogCapture();
  const clock = opts.clock ?? systemClock;
  const plane = await buildApp({
    config: testConfig(opts.config),
    database: db.database,
    clock,
    secretKey: TEST_SECRET_KEY,
    logger: makeLogger('info', logs),
    evidenceStorage: opts.evidenceStorage,
    settingsLockWaitMs: opts.settingsLockWaitMs,
    consoleRoot: opts.consoleRoot,
  });
  await plane.app.ready();
  await plane.ready();
  return {
    plane,
    db,
    clock,
    logs,
    async close() {
      await plane.close();
      if (!opts.db) await db.drop();
    },
  };
}

export { ManualClock };
