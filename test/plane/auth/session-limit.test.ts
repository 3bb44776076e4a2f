import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { login } from '../client.js';
import { SseReader } from '../sse-client.js';
import { seedOrg, seedUser } from '../fixtures.js';

let t: TestPlane;
beforeAll(async () => { t = await startPlane(); });
afterAll(async () => { await t?.close(); });

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
  const live = await db.selectFrom('sessions').select('id').where('org_id', '=', org).where('revoked_at', 'is', null).execute();
  expect(live).toHaveLength(1);
});
