import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, CANARY, ROOT, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import {
  tenants,
  createUser,
  lastAudit,
  unique,
  NOT_FOUND,
  PASSWORD,
  randomId,
  type Tenants,
} from '../inventory.helpers.js';

let t: TestPlane;
let x: Tenants;
beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
});
afterAll(async () => {
  await t?.close();
});

const FIELDS = ['id', 'org_id', 'login', 'name', 'role', 'disabled'];

describe('users: create and list', () => {
  it('an administrator creates a user in its own organisation by default, audited user.create, no password anywhere', async () => {
    const lg = unique('alice');
    const r = await x.a.admin.post('/api/v1/users', { login: lg, name: 'Alice', password: PASSWORD });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([...FIELDS].sort());
    expect(r.body).toMatchObject({ org_id: x.a.orgId, login: lg, name: 'Alice', role: 'user', disabled: false });
    expect(r.text).not.toContain(CANARY);
    const a = await lastAudit(x.root, 'user.create', r.body.id);
    expect(a).toMatchObject({ org_id: x.a.orgId, object_name: lg });
    const one = await x.root.get(`/api/v1/audit/${a.id}?occurred_at=${encodeURIComponent(a.occurred_at)}`);
    expect(one.text).not.toContain(CANARY);
    expect(one.body.params).toEqual({ login: lg, name: 'Alice', role: 'user', org_id: x.a.orgId, disabled: false });
    expect((await login(t.plane.app, { login: lg, password: PASSWORD })).token).toBeTruthy();
  });

  it('lists only the own organisation for an administrator; superadmin all or narrowed by org', async () => {
    const a = await x.a.admin.get('/api/v1/users');
    expect(a.status).toBe(200);
    expect(a.body.next).toBeNull();
    expect(a.body.rows.every((u: any) => u.org_id === x.a.orgId)).toBe(true);
    expect(a.body.rows.map((u: any) => u.id)).toContain(x.a.operatorId);
    const own = await x.a.admin.get(`/api/v1/users?org=${x.a.orgId}`);
    expect(own.status).toBe(200);
    const cross = await x.a.admin.get(`/api/v1/users?org=${x.b.orgId}`);
    expect(cross.status).toBe(403);
    expect(cross.body).toEqual({ error: 'cross_org' });
    const all = await x.root.get('/api/v1/users');
    expect(new Set(all.body.rows.map((u: any) => u.org_id)).size).toBeGreaterThanOrEqual(3);
    const nb = await x.root.get(`/api/v1/users?org=${x.b.orgId}`);
    expect(nb.body.rows.map((u: any) => u.id).sort()).toEqual([x.b.adminId, x.b.operatorId].sort());
    const p1 = await x.root.get(`/api/v1/users?org=${x.b.orgId}&limit=1`);
    expect(p1.body.rows).toHaveLength(1);
    const p2 = await x.root.get(`/api/v1/users?org=${x.b.orgId}&limit=1&after=${p1.body.next}`);
    expect(p2.body.rows).toHaveLength(1);
    expect(p2.body.next).toBeNull();
    expect((await x.root.get('/api/v1/users?limit=501')).body).toEqual({ error: 'bad_limit' });
  });

  it('an administrator cannot create a superadmin (403 forbidden) nor a user in another organisation (403 cross_org)', async () => {
    const sa = await x.a.admin.post('/api/v1/users', { login: unique('sa'), password: PASSWORD, role: 'superadmin' });
    expect(sa.status).toBe(403);
    expect(sa.body).toEqual({ error: 'forbidden' });
    const cross = await x.a.admin.post('/api/v1/users', { login: unique('x'), password: PASSWORD, org_id: x.b.orgId });
    expect(cross.status).toBe(403);
    expect(cross.body).toEqual({ error: 'cross_org' });
    const ok = await x.root.post('/api/v1/users', {
      login: unique('sa'),
      password: PASSWORD,
      role: 'superadmin',
      org_id: x.b.orgId,
    });
    expect(ok.status).toBe(201);
  });

  it('validates bodies: codes, unknown fields, taken logins', async () => {
    const c = x.a.admin;
    expect((await c.post('/api/v1/users', { login: 'has space', password: PASSWORD })).body).toEqual({
      error: 'bad_login',
    });
    expect((await c.post('/api/v1/users', { login: unique('u'), password: 'short' })).body).toEqual({
      error: 'bad_password',
    });
    expect((await c.post('/api/v1/users', { login: unique('u'), password: PASSWORD, role: 'root' })).body).toEqual({
      error: 'bad_role',
    });
    expect((await c.post('/api/v1/users', { login: unique('u'), password: PASSWORD, name: '' })).body).toEqual({
      error: 'bad_name',
    });
    const extra = await c.post('/api/v1/users', { login: unique('u'), password: PASSWORD, is_admin: true });
    expect(extra.status).toBe(400);
    expect(extra.body).toEqual({ error: 'unknown_field' });
    const dup = await c.post('/api/v1/users', { login: ROOT.login.toUpperCase(), password: PASSWORD });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'already_exists' });
    // bodies are checked as sent: no type coercion (null is not false, a number is not a name)
    const target = await createUser(t, x.a.admin, { login: unique('strict'), disabled: false });
    expect((await c.patch(`/api/v1/users/${target.id}`, { disabled: null })).body).toEqual({ error: 'bad_request' });
    expect((await c.patch(`/api/v1/users/${target.id}`, { disabled: 'false' })).body).toEqual({ error: 'bad_request' });
    expect((await c.patch(`/api/v1/users/${target.id}`, { name: 12345 })).body).toEqual({ error: 'bad_name' });
    expect((await c.post('/api/v1/users', { login: unique('u'), password: 12345678 })).body).toEqual({
      error: 'bad_password',
    });
    expect((await c.post('/api/v1/users', { login: unique('u') })).body).toEqual({ error: 'bad_password' });
    const unknownOrg = await x.root.post('/api/v1/users', {
      login: unique('u'),
      password: PASSWORD,
      org_id: randomId(),
    });
    expect(unknownOrg.body).toEqual({ error: 'unknown_org' });
  });

  it('max_users: 409 max_users_reached once the organisation is full', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('small'), max_users: 1 })).body;
    expect(
      (await x.root.post('/api/v1/users', { login: unique('one'), password: PASSWORD, org_id: org.id })).status,
    ).toBe(201);
    const r = await x.root.post('/api/v1/users', { login: unique('two'), password: PASSWORD, org_id: org.id });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: 'max_users_reached' });
    // moving a user into the full organisation is refused the same way
    const mover = await createUser(t, x.root, { login: unique('mover'), org_id: x.b.orgId });
    const mv = await x.root.patch(`/api/v1/users/${mover.id}`, { org_id: org.id });
    expect(mv.status).toBe(409);
    expect(mv.body).toEqual({ error: 'max_users_reached' });
  });

  it('operators and anonymous callers cannot list, create or delete', async () => {
    for (const [m, url, body] of [
      ['GET', '/api/v1/users', undefined],
      ['POST', '/api/v1/users', { login: 'zz', password: PASSWORD }],
      ['DELETE', `/api/v1/users/${x.a.adminId}`, undefined],
    ] as const) {
      const r = await x.a.operator.req(m, url, body);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: 'forbidden' });
      expect((await x.anon.req(m, url, body)).status).toBe(401);
    }
  });
});

describe('users: change and delete', () => {
  it('an operator may change only its own name and password; anything else is 403 forbidden', async () => {
    const op = await createUser(t, x.a.admin, { login: unique('op') });
    const name = await op.client.patch(`/api/v1/users/${op.id}`, { name: 'New Name' });
    expect(name.status).toBe(200);
    expect(name.body.name).toBe('New Name');
    for (const body of [
      { role: 'admin' },
      { org_id: x.b.orgId },
      { disabled: true },
      { login: unique('ren') },
      { name: 'x', role: 'user' },
    ]) {
      const r = await op.client.patch(`/api/v1/users/${op.id}`, body);
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body).toEqual({ error: 'forbidden' });
    }
    // another user, in its organisation or not, existing or not: the same 403
    for (const id of [x.a.adminId, x.b.operatorId, randomId()]) {
      const r = await op.client.patch(`/api/v1/users/${id}`, { name: 'x' });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: 'forbidden' });
    }
    const pw = await op.client.patch(`/api/v1/users/${op.id}`, { password: `new-${PASSWORD}` });
    expect(pw.status).toBe(200);
    expect(pw.text).not.toContain(CANARY);
    expect(
      (
        await login(t.plane.app, {
          login: (await op.client.get('/api/v1/auth/me')).body.user.login,
          password: `new-${PASSWORD}`,
        })
      ).token,
    ).toBeTruthy();
    const extra = await op.client.patch(`/api/v1/users/${op.id}`, { password_hash: 'x' });
    expect(extra.body).toEqual({ error: 'unknown_field' });
  });

  it('an administrator cannot change its own role or organisation, promote to superadmin, or touch a superadmin', async () => {
    const self = await x.a.admin.patch(`/api/v1/users/${x.a.adminId}`, { role: 'user' });
    expect(self.status).toBe(403);
    expect(self.body).toEqual({ error: 'forbidden' });
    const promote = await x.a.admin.patch(`/api/v1/users/${x.a.operatorId}`, { role: 'superadmin' });
    expect(promote.status).toBe(403);
    expect(promote.body).toEqual({ error: 'forbidden' });
    const sa = await createUser(t, x.root, { login: unique('sa'), role: 'superadmin', org_id: x.a.orgId });
    for (const r of [
      await x.a.admin.patch(`/api/v1/users/${sa.id}`, { password: `evil-${PASSWORD}` }),
      await x.a.admin.del(`/api/v1/users/${sa.id}`),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: 'forbidden' });
    }
    expect((await x.a.admin.del(`/api/v1/users/${x.a.adminId}`)).body).toEqual({ error: 'forbidden' });
  });

  it('a foreign user is 404, byte-identical to an unknown id; naming a foreign org_id is cross_org', async () => {
    const unknown = await x.a.admin.patch(`/api/v1/users/${randomId()}`, { name: 'x' });
    const foreign = await x.a.admin.patch(`/api/v1/users/${x.b.operatorId}`, { name: 'x' });
    const malformed = await x.a.admin.patch('/api/v1/users/abc', { name: 'x' });
    for (const r of [unknown, foreign, malformed]) {
      expect(r.status).toBe(404);
      expect(r.text).toBe(NOT_FOUND);
    }
    const delForeign = await x.a.admin.del(`/api/v1/users/${x.b.operatorId}`);
    expect(delForeign.status).toBe(404);
    expect(delForeign.text).toBe((await x.a.admin.del(`/api/v1/users/${randomId()}`)).text);
    const move = await x.a.admin.patch(`/api/v1/users/${x.a.operatorId}`, { org_id: x.b.orgId });
    expect(move.status).toBe(403);
    expect(move.body).toEqual({ error: 'cross_org' });
  });

  for (const [what, change] of [
    ['disabling', { disabled: true }],
    ['demoting', { role: 'user' }],
    ['resetting the password of', { password: `reset-${PASSWORD}` }],
  ] as const) {
    it(`${what} a user ends its sessions at once (401 right after), audited user.update`, async () => {
      const u = await createUser(t, x.a.admin, { login: unique('victim'), role: 'admin' });
      expect((await u.client.get('/api/v1/auth/me')).status).toBe(200);
      const r = await x.a.admin.patch(`/api/v1/users/${u.id}`, change);
      expect(r.status).toBe(200);
      const after = await u.client.get('/api/v1/auth/me');
      expect(after.status).toBe(401);
      expect(after.body).toEqual({ error: 'unauthorized' });
      const a = await lastAudit(x.root, 'user.update', u.id);
      expect(a.object_id).toBe(u.id);
      const one = await x.root.get(`/api/v1/audit/${a.id}?occurred_at=${encodeURIComponent(a.occurred_at)}`);
      expect(one.text).not.toContain(CANARY);
    });
  }

  it('a disabled user cannot sign in; re-enabling lets it back', async () => {
    const u = await createUser(t, x.a.admin, { login: unique('dis') });
    const lg = (await u.client.get('/api/v1/auth/me')).body.user.login;
    await x.a.admin.patch(`/api/v1/users/${u.id}`, { disabled: true });
    expect((await new Client(t.plane.app).post('/api/v1/auth/login', { login: lg, password: PASSWORD })).status).toBe(
      401,
    );
    await x.a.admin.patch(`/api/v1/users/${u.id}`, { disabled: false });
    expect((await login(t.plane.app, { login: lg, password: PASSWORD })).token).toBeTruthy();
  });

  it('deleting a user ends its sessions at once, audited user.delete', async () => {
    const u = await createUser(t, x.a.admin, { login: unique('del') });
    const d = await x.a.admin.del(`/api/v1/users/${u.id}`);
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ id: u.id, deleted: true });
    expect((await u.client.get('/api/v1/auth/me')).status).toBe(401);
    expect((await lastAudit(x.root, 'user.delete', u.id)).org_id).toBe(x.a.orgId);
    expect((await x.a.admin.del(`/api/v1/users/${u.id}`)).text).toBe(NOT_FOUND);
  });

  it('a superadmin moves a user to another organisation: sessions end, grants of the old one are dropped', async () => {
    const u = await createUser(t, x.root, { login: unique('mv'), org_id: x.a.orgId });
    const tag = (await x.a.admin.post('/api/v1/tags', { name: unique('t') })).body;
    expect((await x.a.admin.put(`/api/v1/users/${u.id}/grants`, { camera_ids: [], tag_ids: [tag.id] })).status).toBe(
      200,
    );
    const r = await x.root.patch(`/api/v1/users/${u.id}`, { org_id: x.b.orgId });
    expect(r.status).toBe(200);
    expect(r.body.org_id).toBe(x.b.orgId);
    expect((await u.client.get('/api/v1/auth/me')).status).toBe(401);
    expect((await x.b.admin.get(`/api/v1/users/${u.id}/grants`)).body).toEqual({ camera_ids: [], tag_ids: [] });
  });

  it('never writes a password or its hash into logs', () => {
    expect(t.logs.text).not.toContain(CANARY);
    expect(t.logs.text).not.toContain('scrypt$');
  });
});
