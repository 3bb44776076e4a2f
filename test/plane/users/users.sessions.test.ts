import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { login } from '../client.js';
import { SseReader } from '../sse-client.js';
import { tenants, createUser, unique, PASSWORD, type Tenants } from '../inventory.helpers.js';

let t: TestPlane;
let x: Tenants;
let base: string;
beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await t?.close();
});

describe('revocation reaches open streams', () => {
  for (const [what, act] of [
    ['disabled', (id: string) => x.a.admin.patch(`/api/v1/users/${id}`, { disabled: true })],
    ['demoted', (id: string) => x.a.admin.patch(`/api/v1/users/${id}`, { role: 'user' })],
    ['deleted', (id: string) => x.a.admin.del(`/api/v1/users/${id}`)],
  ] as const) {
    it(`ends the open SSE stream of a user ${what}, and its token is refused right after`, async () => {
      const u = await createUser(t, x.a.admin, { login: unique(what), role: 'admin' });
      const s = await SseReader.open(`${base}/api/v1/audit/stream`, { authorization: `Bearer ${u.client.token}` });
      expect(s.status).toBe(200);
      expect((await act(u.id)).status).toBe(200);
      await s.until((r) => r.ended, 3000);
      expect(s.ended).toBe(true);
      expect((await u.client.get('/api/v1/auth/me')).status).toBe(401);
    });
  }
});

describe('quotas under concurrency', () => {
  it('max_users holds when creations race (the organisation row is locked while counting)', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('race'), max_users: 3 })).body;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        x.root.post('/api/v1/users', { login: unique(`r${i}`), password: PASSWORD, org_id: org.id }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error === 'max_users_reached')).toBe(true);
    expect((await x.root.get(`/api/v1/users?org=${org.id}`)).body.rows).toHaveLength(3);
  });

  it('max_cameras and max_tags hold when creations race', async () => {
    const node = (
      await x.root.post('/api/v1/nodes', { name: unique('n'), url: 'http://127.0.0.1:1', api_token: 'tok' })
    ).body.id;
    const org = (await x.root.post('/api/v1/orgs', { name: unique('race2'), max_cameras: 2, max_tags: 2 })).body;
    const cams = await Promise.all(
      Array.from({ length: 6 }, () =>
        x.root.post('/api/v1/cameras', { name: 'c', node_id: node, org_id: org.id, main_source: 'rtsp://h/1' }),
      ),
    );
    expect(cams.filter((r) => r.status === 201)).toHaveLength(2);
    const tags = await Promise.all(
      Array.from({ length: 6 }, (_, i) => x.root.post('/api/v1/tags', { name: `t${i}`, org_id: org.id })),
    );
    expect(tags.filter((r) => r.status === 201)).toHaveLength(2);
    expect(tags.filter((r) => r.status === 409).map((r) => r.body.error)).toEqual(Array(4).fill('max_tags_reached'));
  });

  it('a user signs in after a superadmin changes its own name and password', async () => {
    const u = await createUser(t, x.root, { login: unique('self') });
    const lg = (await u.client.get('/api/v1/auth/me')).body.user.login;
    expect((await u.client.patch(`/api/v1/users/${u.id}`, { name: 'Me', password: `${PASSWORD}-2` })).status).toBe(200);
    // a change of one's own password keeps the session that made it
    expect((await u.client.get('/api/v1/auth/me')).status).toBe(200);
    expect((await login(t.plane.app, { login: lg, password: `${PASSWORD}-2` })).token).toBeTruthy();
  });
});
