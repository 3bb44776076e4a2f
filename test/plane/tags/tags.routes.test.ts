import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { tenants, lastAudit, unique, NOT_FOUND, randomId, type Tenants } from '../inventory.helpers.js';

let t: TestPlane;
let x: Tenants;
beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
});
afterAll(async () => {
  await t?.close();
});

describe('tags', () => {
  it('create (own organisation by default), list, rename, delete; each change audited', async () => {
    const c = await x.a.admin.post('/api/v1/tags', { name: 'Entrance' });
    expect(c.status).toBe(201);
    expect(c.body).toEqual({ id: c.body.id, org_id: x.a.orgId, name: 'Entrance' });
    expect((await lastAudit(x.root, 'tag.create', c.body.id)).org_id).toBe(x.a.orgId);
    const l = await x.a.admin.get('/api/v1/tags');
    expect(l.status).toBe(200);
    expect(l.body).toEqual({ rows: [c.body], next: null });
    const p = await x.a.admin.patch(`/api/v1/tags/${c.body.id}`, { name: 'Lobby' });
    expect(p.status).toBe(200);
    expect(p.body.name).toBe('Lobby');
    expect((await lastAudit(x.root, 'tag.update', c.body.id)).object_name).toBe('Lobby');
    const d = await x.a.admin.del(`/api/v1/tags/${c.body.id}`);
    expect(d.body).toEqual({ id: c.body.id, deleted: true });
    expect((await lastAudit(x.root, 'tag.delete', c.body.id)).action).toBe('tag.delete');
    expect((await x.a.admin.get('/api/v1/tags')).body.rows).toEqual([]);
  });

  it('409 already_exists for a name taken in the same organisation only', async () => {
    const name = unique('Dock');
    expect((await x.a.admin.post('/api/v1/tags', { name })).status).toBe(201);
    const dup = await x.a.admin.post('/api/v1/tags', { name: name.toLowerCase() });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'already_exists' });
    expect((await x.b.admin.post('/api/v1/tags', { name })).status).toBe(201);
  });

  it('max_tags: 409 max_tags_reached', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('few'), max_tags: 1 })).body;
    expect((await x.root.post('/api/v1/tags', { name: 'one', org_id: org.id })).status).toBe(201);
    const r = await x.root.post('/api/v1/tags', { name: 'two', org_id: org.id });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: 'max_tags_reached' });
  });

  it('validation codes', async () => {
    expect((await x.a.admin.post('/api/v1/tags', { name: '' })).body).toEqual({ error: 'bad_name' });
    expect((await x.a.admin.post('/api/v1/tags', { name: 'a'.repeat(129) })).body).toEqual({ error: 'bad_name' });
    expect((await x.a.admin.post('/api/v1/tags', { name: 'ok', colour: 'red' })).body).toEqual({
      error: 'unknown_field',
    });
    expect((await x.a.admin.get('/api/v1/tags?limit=0')).body).toEqual({ error: 'bad_limit' });
    expect((await x.root.post('/api/v1/tags', { name: 'ok', org_id: randomId() })).body).toEqual({
      error: 'unknown_org',
    });
  });

  it('cross-organisation: 404 for a foreign tag (same bytes as unknown), cross_org for a named foreign org', async () => {
    const tb = (await x.b.admin.post('/api/v1/tags', { name: unique('b') })).body;
    const unknown = await x.a.admin.patch(`/api/v1/tags/${randomId()}`, { name: 'x' });
    for (const r of [
      await x.a.admin.patch(`/api/v1/tags/${tb.id}`, { name: 'x' }),
      await x.a.admin.del(`/api/v1/tags/${tb.id}`),
      unknown,
      await x.a.admin.del('/api/v1/tags/zzz'),
    ]) {
      expect(r.status).toBe(404);
      expect(r.text).toBe(NOT_FOUND);
    }
    expect((await x.a.admin.post('/api/v1/tags', { name: 'x', org_id: x.b.orgId })).body).toEqual({
      error: 'cross_org',
    });
    const l = await x.a.admin.get(`/api/v1/tags?org=${x.b.orgId}`);
    expect(l.status).toBe(403);
    expect(l.body).toEqual({ error: 'cross_org' });
    const rootB = await x.root.get(`/api/v1/tags?org=${x.b.orgId}`);
    expect(rootB.body.rows.every((r: any) => r.org_id === x.b.orgId)).toBe(true);
    expect(rootB.body.rows.map((r: any) => r.id)).toContain(tb.id);
    // the superadmin reaches any organisation's tag
    expect((await x.root.patch(`/api/v1/tags/${tb.id}`, { name: unique('root') })).status).toBe(200);
  });

  it('operators get 403 forbidden, anonymous 401', async () => {
    for (const [m, url] of [
      ['GET', '/api/v1/tags'],
      ['POST', '/api/v1/tags'],
      ['PATCH', `/api/v1/tags/${randomId()}`],
      ['DELETE', `/api/v1/tags/${randomId()}`],
    ] as const) {
      const r = await x.a.operator.req(m, url, m === 'GET' || m === 'DELETE' ? undefined : { name: 'x' });
      expect(r.body).toEqual({ error: 'forbidden' });
      expect((await x.anon.req(m, url)).status).toBe(401);
    }
  });
});
