import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, CANARY, TEST_SECRET_KEY, type TestPlane } from '../harness.js';
import { tenants, lastAudit, unique, NOT_FOUND, randomId, type Tenants } from '../inventory.helpers.js';
import { SecretBox } from '../../../src/plane/crypto/secret-box.js';

let t: TestPlane;
let x: Tenants;
beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
});
afterAll(async () => {
  await t?.close();
});

const TOKEN = `node-token-${CANARY}`;
const BACKEND = `backend-${CANARY}`;
const ROW = [
  'id',
  'name',
  'url',
  'enabled',
  'state',
  'last_seen_at',
  'version',
  'api_token_configured',
  'auth_backend_secret_configured',
];

describe('nodes', () => {
  it('registers a node; secrets are write-only, stored encrypted, never in replies or audit', async () => {
    const r = await x.root.post('/api/v1/nodes', {
      name: unique('edge'),
      url: 'http://10.0.0.5:8081/',
      api_token: TOKEN,
      auth_backend_secret: BACKEND,
    });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([...ROW].sort());
    expect(r.body).toMatchObject({
      url: 'http://10.0.0.5:8081',
      enabled: true,
      state: 'unknown',
      last_seen_at: null,
      version: null,
      api_token_configured: true,
      auth_backend_secret_configured: true,
    });
    expect(r.text).not.toContain(CANARY);
    const stored = await t.db.database.db
      .selectFrom('nodes')
      .selectAll()
      .where('id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    expect(stored.api_token_enc).not.toContain(CANARY);
    expect(stored.auth_backend_secret_enc).not.toContain(CANARY);
    expect(new SecretBox(TEST_SECRET_KEY).open(stored.api_token_enc, `node:${r.body.id}:api_token`)).toBe(TOKEN);
    expect(await t.plane.services.nodes.credentials(r.body.id)).toEqual({
      url: 'http://10.0.0.5:8081',
      apiToken: TOKEN,
      authBackendSecret: BACKEND,
    });
    const a = await lastAudit(x.root, 'node.create', r.body.id);
    expect(a).toMatchObject({ node_id: r.body.id, object_type: 'node' });
    const one = await x.root.get(`/api/v1/audit/${a.id}?occurred_at=${encodeURIComponent(a.occurred_at)}`);
    expect(one.text).not.toContain(CANARY);
    const list = await x.root.get('/api/v1/nodes');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(CANARY);
    expect(list.body.rows.map((n: any) => n.id)).toContain(r.body.id);
  });

  it('a ciphertext moved to another row does not open', async () => {
    const box = new SecretBox(TEST_SECRET_KEY);
    const sealed = box.seal('s', 'node:a:api_token');
    expect(() => box.open(sealed, 'node:b:api_token')).toThrow();
    expect(() => box.open(sealed, 'node:a:auth_backend_secret')).toThrow();
  });

  it('GET of one node answers 405 with Allow', async () => {
    const n = (await x.root.post('/api/v1/nodes', { name: unique('n'), url: 'https://node.example', api_token: TOKEN }))
      .body;
    const r = await x.root.get(`/api/v1/nodes/${n.id}`);
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ error: 'method_not_allowed' });
    expect(String(r.headers.allow)).toContain('PATCH');
    expect(String(r.headers.allow)).toContain('DELETE');
  });

  it('patches fields and secrets; null clears auth_backend_secret; audited node.update without secrets', async () => {
    const n = (
      await x.root.post('/api/v1/nodes', {
        name: unique('p'),
        url: 'http://a.example',
        api_token: TOKEN,
        auth_backend_secret: BACKEND,
      })
    ).body;
    // The token opened from a row read before the change (openApiToken keeps it opened).
    const sealed = async () =>
      (
        await t.db.database.db
          .selectFrom('nodes')
          .select('api_token_enc')
          .where('id', '=', n.id)
          .executeTakeFirstOrThrow()
      ).api_token_enc;
    const before = await sealed();
    expect(t.plane.services.nodes.openApiToken(n.id, before)).toBe(TOKEN);
    const r = await x.root.patch(`/api/v1/nodes/${n.id}`, {
      enabled: false,
      api_token: `${TOKEN}-2`,
      auth_backend_secret: null,
      url: 'https://b.example:9443',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      enabled: false,
      url: 'https://b.example:9443',
      api_token_configured: true,
      auth_backend_secret_configured: false,
    });
    expect((await t.plane.services.nodes.credentials(n.id))?.apiToken).toBe(`${TOKEN}-2`);
    expect(t.plane.services.nodes.openApiToken(n.id, await sealed())).toBe(`${TOKEN}-2`);
    expect(t.plane.services.nodes.openApiToken(n.id, before)).toBe(TOKEN);
    const a = await lastAudit(x.root, 'node.update', n.id);
    const one = await x.root.get(`/api/v1/audit/${a.id}?occurred_at=${encodeURIComponent(a.occurred_at)}`);
    expect(one.body.params.changed.sort()).toEqual(['api_token', 'auth_backend_secret', 'enabled', 'url'].sort());
    expect(one.text).not.toContain(CANARY);
  });

  it('validates: url scheme, credentials in the url, secrets, names, unknown fields, taken names', async () => {
    const base = { name: unique('v'), url: 'http://n.example', api_token: TOKEN };
    for (const url of [
      'ftp://n.example',
      'not a url',
      'http://user:pw@n.example',
      'http://n.example/?a=1',
      'rtsp://n.example',
    ]) {
      const r = await x.root.post('/api/v1/nodes', { ...base, url });
      expect(r.status, url).toBe(400);
      expect(r.body).toEqual({ error: 'bad_url' });
    }
    expect((await x.root.post('/api/v1/nodes', { ...base, api_token: '' })).body).toEqual({ error: 'bad_token' });
    expect((await x.root.post('/api/v1/nodes', { name: 'x', url: 'http://n.example' })).body).toEqual({
      error: 'bad_token',
    });
    expect((await x.root.post('/api/v1/nodes', { ...base, name: '' })).body).toEqual({ error: 'bad_name' });
    expect((await x.root.post('/api/v1/nodes', { ...base, state: 'online' })).body).toEqual({ error: 'unknown_field' });
    expect((await x.root.post('/api/v1/nodes', base)).status).toBe(201);
    const dup = await x.root.post('/api/v1/nodes', { ...base, name: base.name.toUpperCase() });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'already_exists' });
    expect(t.logs.text).not.toContain(CANARY);
  });

  it('deletes a node without cameras; one with cameras is 409 node_in_use', async () => {
    const n = (await x.root.post('/api/v1/nodes', { name: unique('d'), url: 'http://d.example', api_token: TOKEN }))
      .body;
    const cam = await x.a.admin.post('/api/v1/cameras', { name: 'c', node_id: n.id, main_source: 'rtsp://cam/1' });
    expect(cam.status).toBe(201);
    const busy = await x.root.del(`/api/v1/nodes/${n.id}`);
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({ error: 'node_in_use' });
    expect((await x.a.admin.del(`/api/v1/cameras/${cam.body.id}`)).status).toBe(200);
    const d = await x.root.del(`/api/v1/nodes/${n.id}`);
    expect(d.body).toEqual({ id: n.id, deleted: true });
    expect((await lastAudit(x.root, 'node.delete', n.id)).action).toBe('node.delete');
    expect((await x.root.del(`/api/v1/nodes/${n.id}`)).text).toBe(NOT_FOUND);
    expect((await x.root.patch(`/api/v1/nodes/${randomId()}`, { enabled: true })).text).toBe(NOT_FOUND);
    expect((await x.root.patch('/api/v1/nodes/xyz', { enabled: true })).text).toBe(NOT_FOUND);
  });

  it('pages by id', async () => {
    const all = (await x.root.get('/api/v1/nodes')).body.rows.map((n: any) => n.id);
    expect(all.length).toBeGreaterThan(2);
    const p1 = await x.root.get('/api/v1/nodes?limit=2');
    expect(p1.body.rows.map((n: any) => n.id)).toEqual(all.slice(0, 2));
    expect(p1.body.next).toBe(all[1]);
    const p2 = await x.root.get(`/api/v1/nodes?after=${p1.body.next}`);
    expect(p2.body.rows.map((n: any) => n.id)).toEqual(all.slice(2));
    expect(p2.body.next).toBeNull();
  });

  it('is superadmin only', async () => {
    for (const c of [x.a.admin, x.b.operator]) {
      for (const [m, url] of [
        ['GET', '/api/v1/nodes'],
        ['POST', '/api/v1/nodes'],
        ['PATCH', `/api/v1/nodes/${randomId()}`],
        ['DELETE', `/api/v1/nodes/${randomId()}`],
      ] as const) {
        const r = await c.req(m, url, m === 'PATCH' || m === 'POST' ? { enabled: true } : undefined);
        expect(r.status).toBe(403);
        expect(r.body).toEqual({ error: 'forbidden' });
      }
    }
    expect((await x.anon.get('/api/v1/nodes')).status).toBe(401);
  });
});
