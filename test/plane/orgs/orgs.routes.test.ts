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

const LIMITS = [
  'max_cameras',
  'max_users',
  'attachment_quota_bytes',
  'max_sessions_per_user',
  'max_dashboards',
  'max_reports',
  'max_tags',
  'max_event_templates',
  'max_agents',
  'max_agent_devices',
  'max_agent_access_rules',
];

describe('organisations', () => {
  it('creates with every max_* limit, null meaning unlimited, and audits org.create', async () => {
    const name = unique('acme');
    const r = await x.root.post('/api/v1/orgs', {
      name,
      max_users: 5,
      attachment_quota_bytes: 10 * 2 ** 40,
      max_tags: 0,
    });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['id', 'name', ...LIMITS].sort());
    expect(r.body).toMatchObject({
      name,
      max_users: 5,
      attachment_quota_bytes: 10 * 2 ** 40,
      max_tags: 0,
      max_cameras: null,
    });
    const a = await lastAudit(x.root, 'org.create', r.body.id);
    expect(a).toMatchObject({ action: 'org.create', object_type: 'org', object_name: name, org_id: r.body.id });
  });

  it('lists by id with after/limit and next', async () => {
    const all = await x.root.get('/api/v1/orgs');
    expect(all.status).toBe(200);
    expect(all.body.next).toBeNull();
    const ids = all.body.rows.map((o: any) => o.id);
    expect(ids).toEqual([...ids].sort());
    const p1 = await x.root.get('/api/v1/orgs?limit=1');
    expect(p1.body.rows).toHaveLength(1);
    expect(p1.body.next).toBe(ids[0]);
    const p2 = await x.root.get(`/api/v1/orgs?limit=500&after=${p1.body.next}`);
    expect(p2.body.rows.map((o: any) => o.id)).toEqual(ids.slice(1));
    expect((await x.root.get('/api/v1/orgs?limit=0')).body).toEqual({ error: 'bad_limit' });
    expect((await x.root.get('/api/v1/orgs?limit=501')).body).toEqual({ error: 'bad_limit' });
    expect((await x.root.get('/api/v1/orgs?after=nope')).body).toEqual({ error: 'bad_cursor' });
  });

  it('patches name and limits, explicit null clearing a limit; unchanged writes no record', async () => {
    const o = (await x.root.post('/api/v1/orgs', { name: unique('p'), max_cameras: 3 })).body;
    const r = await x.root.patch(`/api/v1/orgs/${o.id}`, { max_cameras: null, max_users: 2 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: o.id, max_cameras: null, max_users: 2 });
    const a = await lastAudit(x.root, 'org.update', o.id);
    expect(a.object_id).toBe(o.id);
    const again = await x.root.patch(`/api/v1/orgs/${o.id}`, { max_users: 2 });
    expect(again.status).toBe(200);
    const list = await x.root.get(`/api/v1/audit?action=org.update&object_id=${o.id}`);
    expect(list.body.rows).toHaveLength(1);
  });

  it('rejects bad bodies with their codes', async () => {
    expect((await x.root.post('/api/v1/orgs', { name: '' })).body).toEqual({ error: 'bad_name' });
    expect((await x.root.post('/api/v1/orgs', {})).body).toEqual({ error: 'bad_name' });
    expect((await x.root.post('/api/v1/orgs', { name: 'x', max_users: -1 })).body).toEqual({
      error: 'bad_limit_value',
    });
    expect((await x.root.post('/api/v1/orgs', { name: 'x', max_users: 1.5 })).body).toEqual({
      error: 'bad_limit_value',
    });
    // no coercion in bodies: "" or "5" is not a limit (it would otherwise become unlimited or 5)
    expect((await x.root.post('/api/v1/orgs', { name: 'x', max_users: '' })).body).toEqual({
      error: 'bad_limit_value',
    });
    expect((await x.root.post('/api/v1/orgs', { name: 'x', max_users: '5' })).body).toEqual({
      error: 'bad_limit_value',
    });
    expect((await x.root.post('/api/v1/orgs', { name: 42 })).body).toEqual({ error: 'bad_name' });
    const unknown = await x.root.post('/api/v1/orgs', { name: 'x', plan: 'gold' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'unknown_field' });
  });

  it('answers 409 already_exists for a taken name (case-insensitive)', async () => {
    const name = unique('Dup');
    expect((await x.root.post('/api/v1/orgs', { name })).status).toBe(201);
    const r = await x.root.post('/api/v1/orgs', { name: name.toUpperCase() });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: 'already_exists' });
  });

  it('deletes an empty organisation; a non-empty one is 409 org_not_empty', async () => {
    const o = (await x.root.post('/api/v1/orgs', { name: unique('gone') })).body;
    const d = await x.root.del(`/api/v1/orgs/${o.id}`);
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ id: o.id, deleted: true, cleanup_job_id: null });
    expect((await lastAudit(x.root, 'org.delete', o.id)).action).toBe('org.delete');
    const busy = await x.root.del(`/api/v1/orgs/${x.a.orgId}`);
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({ error: 'org_not_empty' });
    // a tag alone keeps an organisation too
    const o2 = (await x.root.post('/api/v1/orgs', { name: unique('tagged') })).body;
    expect((await x.root.post('/api/v1/tags', { name: 't', org_id: o2.id })).status).toBe(201);
    expect((await x.root.del(`/api/v1/orgs/${o2.id}`)).body).toEqual({ error: 'org_not_empty' });
  });

  it('answers 404 for an unknown or malformed id, identically', async () => {
    const a = await x.root.patch(`/api/v1/orgs/${randomId()}`, { name: 'z' });
    const b = await x.root.del('/api/v1/orgs/not-a-uuid');
    expect(a.status).toBe(404);
    expect(a.text).toBe(NOT_FOUND);
    expect(b.text).toBe(NOT_FOUND);
  });

  it('is superadmin only: administrators and operators 403 forbidden, anonymous 401', async () => {
    for (const c of [x.a.admin, x.a.operator, x.b.admin]) {
      for (const [m, url, body] of [
        ['GET', '/api/v1/orgs', undefined],
        ['POST', '/api/v1/orgs', { name: 'evil' }],
        ['PATCH', `/api/v1/orgs/${x.a.orgId}`, { name: 'evil' }],
        ['DELETE', `/api/v1/orgs/${x.b.orgId}`, undefined],
      ] as const) {
        const r = await c.req(m, url, body);
        expect(r.status, `${m} ${url}`).toBe(403);
        expect(r.body).toEqual({ error: 'forbidden' });
      }
    }
    const anon = await x.anon.get('/api/v1/orgs');
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ error: 'unauthorized' });
  });
});
