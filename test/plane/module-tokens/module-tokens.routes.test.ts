import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { startPlane, CANARY, type TestPlane } from '../harness.js';
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

const ROW_KEYS = ['created_at', 'enabled', 'id', 'last_used_at', 'name', 'org_id', 'rate_limit'];
const oneEvent = () => ({ events: [{ detector: 'probe', occurred_at: new Date().toISOString() }] });

describe('module tokens', () => {
  it('create shows the secret once with no-cache headers; only its SHA-256 is stored; audited without it', async () => {
    const r = await x.a.admin.post('/api/v1/module-tokens', { name: 'Plates' });
    expect(r.status).toBe(201);
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['pragma']).toBe('no-cache');
    expect(Object.keys(r.body).sort()).toEqual([...ROW_KEYS, 'secret'].sort());
    expect(r.body).toMatchObject({
      org_id: x.a.orgId,
      name: 'Plates',
      rate_limit: null,
      enabled: true,
      last_used_at: null,
    });
    expect(r.body.secret).toMatch(/^amt_[A-Za-z0-9_-]{43}$/);
    const stored = await t.db.database.db
      .selectFrom('module_tokens')
      .selectAll()
      .where('id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    expect(Buffer.from(stored.secret_sha256).toString('hex')).toBe(
      createHash('sha256').update(r.body.secret).digest('hex'),
    );
    expect(JSON.stringify(stored)).not.toContain(r.body.secret);
    const audit = await lastAudit(x.root, 'token.create', r.body.id);
    expect(audit.params).toEqual({ name: 'Plates', rate_limit: null, org_id: x.a.orgId });
    expect(JSON.stringify(audit)).not.toContain(r.body.secret);
    // never again: list and patch answer rows without the secret
    const l = await x.a.admin.get('/api/v1/module-tokens');
    expect(l.body.rows.find((row: any) => row.id === r.body.id)).toEqual({ ...r.body, secret: undefined });
    expect(Object.keys(l.body.rows[0]).sort()).toEqual(ROW_KEYS);
    expect(t.logs.text).not.toContain(r.body.secret);
  });

  it('validation: bad_name, reserved_name, bad_rate_limit, unknown_field; 409 already_exists (case-insensitive, per org)', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: '' }, 'bad_name'],
      [{ name: 'a'.repeat(129) }, 'bad_name'],
      [{}, 'bad_name'],
      [{ name: '__system' }, 'reserved_name'],
      [{ name: '__' }, 'reserved_name'],
      [{ name: 'ok', rate_limit: 0 }, 'bad_rate_limit'],
      [{ name: 'ok', rate_limit: -5 }, 'bad_rate_limit'],
      [{ name: 'ok', rate_limit: 1.5 }, 'bad_rate_limit'],
      [{ name: 'ok', rate_limit: 'fast' }, 'bad_rate_limit'],
      [{ name: 'ok', rate_limit: '5' }, 'bad_rate_limit'],
      [{ name: 'x\u0001y' }, 'bad_name'],
      [{ name: 'ok', rate_limit: true }, 'bad_rate_limit'],
      [{ name: 7 }, 'bad_name'],
      [{ name: 'ok', colour: 1 }, 'unknown_field'],
    ];
    for (const [body, code] of cases) {
      const r = await x.a.admin.post('/api/v1/module-tokens', body);
      expect([r.status, r.body], JSON.stringify(body)).toEqual([400, { error: code }]);
    }
    const name = unique('Dup');
    expect((await x.a.admin.post('/api/v1/module-tokens', { name, rate_limit: 50 })).status).toBe(201);
    const dup = await x.a.admin.post('/api/v1/module-tokens', { name: name.toUpperCase() });
    expect([dup.status, dup.body]).toEqual([409, { error: 'already_exists' }]);
    expect((await x.b.admin.post('/api/v1/module-tokens', { name })).status).toBe(201);
    expect(
      (await x.a.admin.post('/api/v1/module-tokens', { name: unique('n'), rate_limit: null })).body.rate_limit,
    ).toBeNull();
    // the bounds are inclusive: a name of 128 characters, a rate of 1
    const long = unique('L').padEnd(128, 'l');
    const edge = await x.a.admin.post('/api/v1/module-tokens', { name: long, rate_limit: 1 });
    expect([edge.status, edge.body.name, edge.body.rate_limit], edge.text).toEqual([201, long, 1]);
    // one leading underscore is no reserved name
    expect((await x.a.admin.post('/api/v1/module-tokens', { name: unique('_x') })).status).toBe(201);
  });

  it('list: {rows, next} by id with after and limit (default 500, 1..500), q substring, query_too_long, org', async () => {
    const tag = unique('pg').toLowerCase();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await x.a.admin.post('/api/v1/module-tokens', { name: `${tag}-Token-${i}` })).body.id);
    ids.sort();
    const p1 = await x.a.admin.get(`/api/v1/module-tokens?q=${tag.toUpperCase()}&limit=2`);
    expect(p1.status).toBe(200);
    expect(p1.body.rows.map((r: any) => r.id)).toEqual(ids.slice(0, 2));
    expect(p1.body.next).toBe(ids[1]);
    const p2 = await x.a.admin.get(`/api/v1/module-tokens?q=${tag}&limit=2&after=${p1.body.next}`);
    expect(p2.body).toEqual({ rows: [expect.objectContaining({ id: ids[2] })], next: null });
    expect((await x.a.admin.get(`/api/v1/module-tokens?q=${'q'.repeat(128)}`)).body).toEqual({ rows: [], next: null });
    expect((await x.a.admin.get(`/api/v1/module-tokens?q=${'q'.repeat(129)}`)).body).toEqual({
      error: 'query_too_long',
    });
    for (const l of ['0', '501', 'x'])
      expect((await x.a.admin.get(`/api/v1/module-tokens?limit=${l}`)).body).toEqual({ error: 'bad_limit' });
    expect((await x.a.admin.get('/api/v1/module-tokens?after=nope')).body).toEqual({ error: 'bad_cursor' });
    expect((await x.a.admin.get(`/api/v1/module-tokens?org=${x.b.orgId}`)).body).toEqual({ error: 'cross_org' });
    expect((await x.a.admin.get(`/api/v1/module-tokens?org=${x.a.orgId}`)).status).toBe(200);
    const rootB = (await x.root.get(`/api/v1/module-tokens?org=${x.b.orgId}`)).body.rows;
    expect(rootB.length).toBeGreaterThan(0);
    expect(rootB.every((r: any) => r.org_id === x.b.orgId)).toBe(true);
    const own = (await x.a.admin.get('/api/v1/module-tokens')).body.rows;
    expect(own.every((r: any) => r.org_id === x.a.orgId)).toBe(true);
  });

  it('reserved `__` tokens are invisible: not listed, 404 on patch, rotate and delete, yet they send events', async () => {
    const hidden = await t.plane.services.moduleTokens.createReserved(x.a.orgId, '__onvif');
    const rows = (await x.root.get(`/api/v1/module-tokens?org=${x.a.orgId}&q=__`)).body.rows;
    expect(rows).toEqual([]);
    for (const r of [
      await x.root.patch(`/api/v1/module-tokens/${hidden.id}`, { enabled: false }),
      await x.root.post(`/api/v1/module-tokens/${hidden.id}/rotate`),
      await x.root.del(`/api/v1/module-tokens/${hidden.id}`),
    ]) {
      expect(r.status).toBe(404);
      expect(r.text).toBe(NOT_FOUND);
    }
    expect((await x.anon.as(hidden.secret).post('/api/v1/events', oneEvent())).status).toBe(200);
  });

  it('patch: rename (same checks), rate_limit omitted / null / number, enabled; audited token.update; no change, no record', async () => {
    const tok = (await x.a.admin.post('/api/v1/module-tokens', { name: unique('p'), rate_limit: 10 })).body;
    const keep = await x.a.admin.patch(`/api/v1/module-tokens/${tok.id}`, { name: tok.name });
    expect(keep.body).toEqual({ ...tok, secret: undefined });
    expect((await x.root.get(`/api/v1/audit?action=token.update&object_id=${tok.id}`)).body.rows).toEqual([]);
    const r1 = await x.a.admin.patch(`/api/v1/module-tokens/${tok.id}`, { enabled: false });
    expect(r1.body).toMatchObject({ enabled: false, rate_limit: 10 });
    expect((await lastAudit(x.root, 'token.update', tok.id)).params).toEqual({ changed: ['enabled'], enabled: false });
    const r2 = await x.a.admin.patch(`/api/v1/module-tokens/${tok.id}`, { rate_limit: null });
    expect(r2.body.rate_limit).toBeNull();
    const r3 = await x.a.admin.patch(`/api/v1/module-tokens/${tok.id}`, { rate_limit: 7, name: 'Renamed' });
    expect(r3.body).toMatchObject({ rate_limit: 7, name: 'Renamed', enabled: false });
    expect(r3.headers['pragma']).toBeUndefined();
    // as sent: null is not false, "false" is not false
    for (const [body, code] of [
      [{ name: '__x' }, 'reserved_name'],
      [{ name: '' }, 'bad_name'],
      [{ rate_limit: 0 }, 'bad_rate_limit'],
      [{ secret: 'x' }, 'unknown_field'],
      [{ enabled: null }, 'bad_request'],
      [{ enabled: 'false' }, 'bad_request'],
      [{ rate_limit: '3' }, 'bad_rate_limit'],
    ] as const) {
      expect((await x.a.admin.patch(`/api/v1/module-tokens/${tok.id}`, body)).body).toEqual({ error: code });
    }
    const other = (await x.a.admin.post('/api/v1/module-tokens', { name: unique('o') })).body;
    expect((await x.a.admin.patch(`/api/v1/module-tokens/${tok.id}`, { name: other.name })).body).toEqual({
      error: 'already_exists',
    });
  });

  it('disable stops intake at once; enable restores it; rotate kills the old secret at once; delete ends it', async () => {
    const tok = (await x.a.admin.post('/api/v1/module-tokens', { name: unique('life') })).body;
    const mod = x.anon.as(tok.secret);
    const ok = await mod.post('/api/v1/events', oneEvent());
    expect(ok.status, ok.text).toBe(200);
    expect(
      (await x.a.admin.get('/api/v1/module-tokens')).body.rows.find((r: any) => r.id === tok.id).last_used_at,
    ).not.toBeNull();
    await x.a.admin.patch(`/api/v1/module-tokens/${tok.id}`, { enabled: false });
    expect(await mod.post('/api/v1/events', oneEvent())).toMatchObject({
      status: 401,
      body: { error: 'unauthorized' },
    });
    await x.a.admin.patch(`/api/v1/module-tokens/${tok.id}`, { enabled: true });
    expect((await mod.post('/api/v1/events', oneEvent())).status).toBe(200);

    const rot = await x.a.admin.post(`/api/v1/module-tokens/${tok.id}/rotate`);
    expect(rot.status).toBe(200);
    expect(rot.headers['cache-control']).toBe('no-store');
    expect(rot.headers['pragma']).toBe('no-cache');
    expect(rot.body).toMatchObject({ id: tok.id, name: tok.name, enabled: true });
    expect(rot.body.secret).not.toBe(tok.secret);
    expect(await mod.post('/api/v1/events', oneEvent())).toMatchObject({
      status: 401,
      body: { error: 'unauthorized' },
    });
    expect((await x.anon.as(rot.body.secret).post('/api/v1/events', oneEvent())).status).toBe(200);
    const audit = await lastAudit(x.root, 'token.rotate', tok.id);
    expect(audit.params).toEqual({});
    expect(JSON.stringify(audit)).not.toContain(rot.body.secret);

    const d = await x.a.admin.del(`/api/v1/module-tokens/${tok.id}`);
    expect(d.body).toEqual({ id: tok.id, deleted: true });
    expect((await lastAudit(x.root, 'token.delete', tok.id)).object_name).toBe(tok.name);
    expect((await x.anon.as(rot.body.secret).post('/api/v1/events', oneEvent())).status).toBe(401);
    expect((await x.a.admin.del(`/api/v1/module-tokens/${tok.id}`)).status).toBe(404);
    expect(t.logs.text).not.toContain(tok.secret);
    expect(t.logs.text).not.toContain(rot.body.secret);
  });

  it('cross-organisation: a foreign token is 404 like a missing one; org_id of another org is cross_org; root acts anywhere', async () => {
    const tb = (await x.b.admin.post('/api/v1/module-tokens', { name: unique('b') })).body;
    for (const r of [
      await x.a.admin.patch(`/api/v1/module-tokens/${tb.id}`, { name: 'x' }),
      await x.a.admin.post(`/api/v1/module-tokens/${tb.id}/rotate`),
      await x.a.admin.del(`/api/v1/module-tokens/${tb.id}`),
      await x.a.admin.patch(`/api/v1/module-tokens/${randomId()}`, { name: 'x' }),
      await x.a.admin.del('/api/v1/module-tokens/zzz'),
      await x.a.admin.post('/api/v1/module-tokens/zzz/rotate'),
    ]) {
      expect(r.status).toBe(404);
      expect(r.text).toBe(NOT_FOUND);
    }
    expect((await x.a.admin.post('/api/v1/module-tokens', { name: 'x', org_id: x.b.orgId })).body).toEqual({
      error: 'cross_org',
    });
    const mine = await x.a.admin.post('/api/v1/module-tokens', { name: unique('own'), org_id: x.a.orgId });
    expect(mine.body.org_id).toBe(x.a.orgId);
    const byRoot = await x.root.post('/api/v1/module-tokens', { name: unique('root'), org_id: x.b.orgId });
    expect([byRoot.status, byRoot.body.org_id]).toEqual([201, x.b.orgId]);
    expect((await x.root.post('/api/v1/module-tokens', { name: 'x', org_id: randomId() })).body).toEqual({
      error: 'unknown_org',
    });
    expect((await x.root.patch(`/api/v1/module-tokens/${tb.id}`, { name: unique('rootname') })).status).toBe(200);
  });

  it('operators get 403 forbidden, anonymous and module tokens 401 on the session routes', async () => {
    const tok = (await x.a.admin.post('/api/v1/module-tokens', { name: unique('m') })).body;
    for (const [m, url] of [
      ['GET', '/api/v1/module-tokens'],
      ['POST', '/api/v1/module-tokens'],
      ['PATCH', `/api/v1/module-tokens/${tok.id}`],
      ['POST', `/api/v1/module-tokens/${tok.id}/rotate`],
      ['DELETE', `/api/v1/module-tokens/${tok.id}`],
    ] as const) {
      const body = m === 'GET' || m === 'DELETE' ? undefined : { name: 'x' };
      expect((await x.a.operator.req(m, url, body)).body).toEqual({ error: 'forbidden' });
      expect((await x.anon.req(m, url, body)).status).toBe(401);
      expect((await x.anon.as(tok.secret).req(m, url, body)).body).toEqual({ error: 'unauthorized' });
    }
  });

  it('deleting an organisation revokes its module tokens at once (they do not keep it: archive cleanup, docs/inventory.md)', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('o') })).body;
    const tok = (await x.root.post('/api/v1/module-tokens', { name: 'only', org_id: org.id })).body;
    expect((await x.root.del(`/api/v1/orgs/${org.id}`)).body).toEqual({
      id: org.id,
      deleted: true,
      cleanup_job_id: null,
    });
    expect((await x.anon.as(tok.secret).post('/api/v1/events', oneEvent())).status).toBe(401);
    expect((await x.root.del(`/api/v1/module-tokens/${tok.id}`)).status).toBe(404);
  });

  it('a session token is not a module token (separate credential spaces)', async () => {
    const r = await x.a.admin.post('/api/v1/events', oneEvent());
    expect([r.status, r.body]).toEqual([401, { error: 'unauthorized' }]);
    expect((await x.anon.as(`amt_${CANARY}`).post('/api/v1/events', oneEvent())).status).toBe(401);
    expect((await x.anon.post('/api/v1/events', oneEvent())).status).toBe(401);
  });
});
