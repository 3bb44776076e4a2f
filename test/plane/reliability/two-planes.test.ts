import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../../src/plane/db/database.js';
import { migrate, migrationsDir } from '../../../src/plane/db/migrate.js';
import { buildApp, makeLogger, type Plane } from '../../../src/plane/app.js';
import { systemClock } from '../../../src/common/clock.js';
import { readdirSync } from 'node:fs';
import { freshDatabase, testConfig, LogCapture, ROOT, type TestDb } from '../harness.js';
import { Client, login } from '../client.js';

const onServer = !!process.env.TEST_DATABASE_URL;
const FILES = readdirSync(migrationsDir())
  .filter((f) => /^\d{4}_.+\.sql$/.test(f))
  .sort();

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
});

/** Handles on one database as separate processes would have them (separate pools on a server). */
async function handles(n: number): Promise<{ db: TestDb; handles: Database[] }> {
  const db = await freshDatabase({ migrated: false });
  cleanup.push(() => db.drop());
  const out: Database[] = [db.database];
  for (let i = 1; i < n; i++) {
    if (!onServer) {
      out.push(db.database);
      continue;
    }
    const d = await openDatabase({ kind: 'postgres', url: db.url! });
    cleanup.unshift(() => d.close());
    out.push(d);
  }
  return { db, handles: out };
}

describe('migrations under the advisory lock', () => {
  it('applies every file exactly once when four starts race on a fresh database', async () => {
    const { handles: hs } = await handles(4);
    const results = await Promise.all(hs.map((h) => migrate(h)));
    const applied = results.map((r) => r.applied);
    // One start applied everything; the others found it done.
    expect(applied.filter((a) => a.length > 0)).toEqual([FILES]);
    expect(applied.filter((a) => a.length === 0).length).toBe(3);
    const rows = await hs[0]!.db
      .selectFrom('schema_migrations' as any)
      .select(['version', 'name'] as any)
      .orderBy('version' as any)
      .execute();
    expect(rows.map((r: any) => r.name)).toEqual(FILES);
    expect((await migrate(hs[1]!)).applied).toEqual([]);
  });
});

describe('two plane processes on one database', () => {
  let a: Plane, b: Plane;

  it('start together on a fresh database: one schema, one superadmin, one signing key', async () => {
    const {
      handles: [da, db],
    } = await handles(2);
    const build = (d: Database) =>
      buildApp({ config: testConfig(), database: d, clock: systemClock, logger: makeLogger('info', new LogCapture()) });
    [a, b] = await Promise.all([build(da!), build(db!)]);
    cleanup.unshift(async () => {
      await a.close();
      await b.close();
    });
    await Promise.all([a.app.ready(), b.app.ready()]);
    await Promise.all([a.ready(), b.ready()]);

    const count = async (q: string) => Number((await sql.raw<{ n: number }>(q).execute(da!.db)).rows[0]!.n);
    expect(await count('select count(*) as n from schema_migrations')).toBe(FILES.length);
    expect(await count(`select count(*) as n from users where role = 'superadmin'`)).toBe(1);
    expect(await count(`select count(*) as n from orgs where name = 'default'`)).toBe(1);
    expect(await count('select count(*) as n from signing_keys')).toBe(1);
    expect(a.services.auth.currentKid()).toBe(b.services.auth.currentKid());
  });

  it('a session opened on one is valid on the other; a rotation on one ends it on both', async () => {
    const onA = await login(a.app, ROOT);
    const onB = new Client(b.app, onA.token);
    expect((await onB.get('/api/v1/auth/me')).status).toBe(200);

    const rotator = await login(b.app, ROOT);
    const r = await rotator.post('/api/v1/admin/keys/rotate');
    expect(r.status).toBe(200);
    for (const c of [onA, onB, new Client(a.app, rotator.token)]) {
      const me = await c.get('/api/v1/auth/me');
      expect(me.status).toBe(401);
      expect(me.body).toEqual({ error: 'unauthorized' });
    }
    // Process A learns the new key through LISTEN/NOTIFY and signs new sessions with it (the
    // notification's delivery waits for a loaded machine: a generous deadline, not a speed bound).
    const deadline = Date.now() + 60_000;
    while (a.services.auth.currentKid() !== r.body.kid && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 20));
    expect(a.services.auth.currentKid()).toBe(r.body.kid);
    const fresh = await login(a.app, ROOT);
    expect((await new Client(b.app, fresh.token).get('/api/v1/auth/me')).status).toBe(200);
  });
});
