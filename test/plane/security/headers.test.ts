import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { Client, login, type Reply } from '../client.js';

let t: TestPlane;
let root: Client;
let anon: Client;
beforeAll(async () => {
  t = await startPlane();
  root = await login(t.plane.app);
  anon = new Client(t.plane.app);
});
afterAll(async () => {
  await t?.close();
});

const LEAK =
  /\bat [^\s]+ \(|\.(ts|js|mjs):\d+|\/work\/|node_modules|\/src\/|\b(select|insert|update|delete)\b .*\b(from|into|set)\b|relation "|syntax error/i;

function expectCommonHeaders(r: Reply) {
  expect(r.headers['x-content-type-options']).toBe('nosniff');
  expect(r.headers['x-powered-by']).toBeUndefined();
  if (r.text.length && /^[{[]/.test(r.text)) expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
}

function expectErrorBody(r: Reply, status: number, body: Record<string, unknown>) {
  expect(r.status).toBe(status);
  expect(r.body).toEqual(body);
  expect(r.text).not.toMatch(LEAK);
  expectCommonHeaders(r);
}

describe('headers of every response', () => {
  it('public replies: nosniff, no X-Powered-By, a charset on JSON', async () => {
    for (const r of [
      await anon.get('/health'),
      await anon.get('/api/v1/openapi.json'),
      await anon.post('/api/v1/auth/login', { login: 'x', password: 'y-password' }),
    ]) {
      expectCommonHeaders(r);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('authenticated replies also carry Cache-Control: no-store (JSON, CSV, errors)', async () => {
    const orgId = (await root.get('/api/v1/auth/me')).body.user.org_id;
    const replies = [
      await root.get('/api/v1/auth/me'),
      await root.get('/api/v1/version'),
      await root.get('/api/v1/audit?limit=2'),
      await root.get('/api/v1/audit/actions'),
      await root.get(`/api/v1/audit?org=${orgId}&action=not.an.action`),
      await root.get('/api/v1/audit/export.csv'),
    ];
    for (const r of replies) {
      expectCommonHeaders(r);
      expect(r.headers['cache-control']).toBe('no-store');
    }
    expect(replies[5]!.headers['content-type']).toBe('text/csv; charset=utf-8');
    const login = await anon.post('/api/v1/auth/login', { login: 'root', password: 'wrong-password' });
    expect(login.headers['cache-control']).toBe('no-store');
  });
});

describe('error bodies', () => {
  it('501 not_implemented for a path the API router does not have, 404 not_found outside /api/v1, with or without a session', async () => {
    for (const c of [anon, root]) {
      for (const path of ['/api/v1/nope', '/api/v1/audit/x/y/z', '/api/v1', '/api/v1/']) {
        expectErrorBody(await c.get(path), 501, { error: 'not_implemented' });
      }
      expectErrorBody(await c.post('/api/v1/nope', {}), 501, { error: 'not_implemented' });
      for (const path of ['/nope', '/api/v2/audit', '/HEALTH', '/api/v10/audit']) {
        expectErrorBody(await c.get(path), 404, { error: 'not_found' });
      }
    }
  });

  it('405 for a known path with another method, with Allow', async () => {
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/api/v1/auth/me', 'GET'],
      ['GET', '/api/v1/auth/login', 'POST'],
      ['PUT', '/health', 'GET'],
      ['GET', '/api/v1/admin/keys/rotate', 'POST'],
      ['POST', '/api/v1/audit', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await root.req(method as any, path, method === 'GET' || method === 'DELETE' ? undefined : {});
      expectErrorBody(r, 405, { error: 'method_not_allowed' });
      expect(r.headers.allow).toBe(allow);
    }
  });

  it('501 not_implemented on every method of the paths document 1 lists', async () => {
    for (const path of [
      '/api/v1/config',
      '/api/v1/config/globals',
      '/api/v1/config/logging',
      '/api/v1/license',
      '/api/v1/logs',
    ]) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        for (const c of [anon, root]) {
          const r = await c.req(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
          expectErrorBody(r, 501, { error: 'not_implemented' });
        }
      }
    }
  });

  it('400s carry no stack, path or SQL', async () => {
    const bad = await t.plane.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"login": ',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'bad_json' });
    const noTs = await root.get('/api/v1/audit/0190a000-0000-7000-8000-000000000000');
    expect(noTs.status).toBe(400);
    expect(typeof noTs.body.error).toBe('string');
    expect(noTs.text).not.toMatch(LEAK);
    expectErrorBody(await root.get('/api/v1/audit?before_ts=2026-01-01T00:00:00Z'), 400, { error: 'bad_audit_cursor' });
  });

  it('a failure of the database query answers exactly {error: internal_error}; the detail goes to the log only', async () => {
    const db = t.db.database.db;
    await sql`alter table audit rename to audit_hidden`.execute(db);
    try {
      const r = await root.get('/api/v1/audit?limit=5');
      expectErrorBody(r, 500, { error: 'internal_error' });
      expect(r.headers['cache-control']).toBe('no-store');
      const csv = await root.get('/api/v1/audit/export.csv');
      expectErrorBody(csv, 500, { error: 'internal_error' });
    } finally {
      await sql`alter table audit_hidden rename to audit`.execute(db);
    }
    expect(t.logs.text).toContain('relation \\"audit\\" does not exist');
    // The plane is not marked down by a query error.
    expect((await anon.get('/health')).body).toEqual({ status: 'ok', database: 'up' });
    expect((await root.get('/api/v1/audit?limit=1')).status).toBe(200);
  });
});
