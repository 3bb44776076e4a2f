import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase, startPlane, ROOT, type TestDb } from '../harness.js';
import { Client } from '../client.js';

let db: TestDb;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});

const superadmins = async () =>
  db.database.db.selectFrom('users').select(['login', 'org_id']).where('role', '=', 'superadmin').execute();

it('creates one superadmin in organisation default, once, whatever later starts say', async () => {
  const first = await startPlane({ db });
  await first.close();
  const second = await startPlane({ db, config: { bootstrap: { login: 'other', password: 'other-password-1' } } });
  const rows = await superadmins();
  expect(rows.map((r) => r.login)).toEqual([ROOT.login]);
  const org = await db.database.db
    .selectFrom('orgs')
    .select('name')
    .where('id', '=', rows[0]!.org_id)
    .executeTakeFirstOrThrow();
  expect(org.name).toBe('default');
  const c = new Client(second.plane.app);
  expect((await c.post('/api/v1/auth/login', { login: 'other', password: 'other-password-1' })).status).toBe(401);
  expect((await c.post('/api/v1/auth/login', ROOT)).status).toBe(200);
  await second.close();
});

it('two processes bootstrapping together still make one superadmin', async () => {
  const fresh = await freshDatabase();
  try {
    const [a, b] = await Promise.all([startPlane({ db: fresh }), startPlane({ db: fresh })]);
    const rows = await fresh.database.db.selectFrom('users').select('login').where('role', '=', 'superadmin').execute();
    expect(rows).toHaveLength(1);
    const orgs = await fresh.database.db.selectFrom('orgs').select('name').execute();
    expect(orgs.map((o) => o.name)).toEqual(['default']);
    await a.close();
    await b.close();
  } finally {
    await fresh.drop();
  }
});
