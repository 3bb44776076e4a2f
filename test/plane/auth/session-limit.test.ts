import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { login } from '../client.js';
import { SseReader } from '../sse-client.js';
import { seedOrg, seedUser } from '../fixtures.js';

let t: TestPlane;
beforeAll(async () => {
  t = await startPlane();
});
afterAll(async () => {
  await t?.close();
});

it('max_sessions_per_user evicts the oldest session, and its open stream ends at once', async () => {
  const db = t.db.database.db;
  const org = await seedOrg(db, 'limited');
  await db.updateTable('orgs').set({ max_sessions_per_user: 1 }).where('id', '=', org).execute();
  const creds = await seedUser(db, org, 'admin', 'single-seat');
  const base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  const first = await login(t.plane.app, creds);
  const s = await SseReader.open(`${base}/api/v1/audit/stream`, { authorization: `Bearer ${first.token}` });
  expect(s.status).toBe(200);
  const second = await login(t.plane.app, creds);
  await s.until((r) => r.ended, 5000);
  expect((await first.get('/api/v1/auth/me')).status).toBe(401);
  expect((await second.get('/api/v1/auth/me')).status).toBe(200);
  const live = await db
    .selectFrom('sessions')
    .select('id')
    .where('org_id', '=', org)
    .where('revoked_at', 'is', null)
    .execute();
  expect(live).toHaveLength(1);
});

it('max_sessions_per_user holds when logins race: the newest stay, the usage count follows', async () => {
  const db = t.db.database.db;
  const org = await seedOrg(db, 'limited-race');
  await db.updateTable('orgs').set({ max_sessions_per_user: 2 }).where('id', '=', org).execute();
  const creds = await seedUser(db, org, 'admin', 'two-seats');
  const clients = await Promise.all(Array.from({ length: 6 }, () => login(t.plane.app, creds)));
  const live = await db
    .selectFrom('sessions')
    .select('id')
    .where('user_id', '=', creds.id)
    .where('revoked_at', 'is', null)
    .execute();
  expect(live).toHaveLength(2);
  const working = (await Promise.all(clients.map((c) => c.get('/api/v1/auth/me')))).filter((r) => r.status === 200);
  expect(working).toHaveLength(2);
  const usable = (
    await Promise.all(clients.map(async (c) => ((await c.get('/api/v1/usage')).status === 200 ? c : null)))
  ).filter(Boolean);
  expect(usable).toHaveLength(2);
  expect((await usable[0]!.get('/api/v1/usage')).body.sessions_count).toBe(2);
});
