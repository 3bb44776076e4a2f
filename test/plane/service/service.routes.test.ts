import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { seedUser } from '../fixtures.js';
import { describeErrors } from '../../../src/plane/errors.js';
import { NOT_IMPLEMENTED_PATHS } from '../../../src/plane/service/service.routes.js';

/** How long another plane process may take to hear of a revocation before the test calls it lost. */
const NOTICE_WITHIN_MS = 60_000;

let t: TestPlane;
let root: Client;
beforeAll(async () => {
  t = await startPlane();
  root = await login(t.plane.app);
});
afterAll(async () => {
  await t?.close();
});

describe('service endpoints', () => {
  it('GET /health is public and says whether the database answers', async () => {
    const r = await new Client(t.plane.app).get('/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok', database: 'up' });
  });

  it('GET /api/v1/version needs a session and returns every field of document 1', async () => {
    expect((await new Client(t.plane.app).get('/api/v1/version')).body).toEqual({ error: 'unauthorized' });
    const r = await root.get('/api/v1/version');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([
      'debug',
      'dirty',
      'features',
      'git',
      'git_sha',
      'opt_level',
      'profile',
      'target',
      'version',
    ]);
    expect(r.body.git_sha).toMatch(/^([0-9a-f]{40}|unknown)$/);
    expect(typeof r.body.dirty).toBe('boolean');
    expect(Array.isArray(r.body.features)).toBe(true);
  });

  it('GET /api/v1/version refuses a token after logout or after its user is disabled, here and in another process', async () => {
    const other = await startPlane({ db: t.db });
    try {
      const orgId = (await root.get('/api/v1/auth/me')).body.user.org_id;
      const creds = await seedUser(t.db.database.db, orgId, 'user', `ver-${Date.now()}`);
      const gone = await login(t.plane.app, creds);
      const kept = await login(t.plane.app, creds);
      const viaOther = (c: Client) => new Client(other.plane.app, c.token!).get('/api/v1/version');
      expect((await gone.get('/api/v1/version')).status).toBe(200);
      expect((await viaOther(gone)).status).toBe(200);
      expect((await gone.post('/api/v1/auth/logout')).status).toBe(204);
      expect((await gone.get('/api/v1/version')).body).toEqual({ error: 'unauthorized' });
      // The other process hears of the logout through the database's NOTIFY: on the embedded database
      // under load that can take seconds; the bound is for a notice that never comes.
      await expect.poll(async () => (await viaOther(gone)).status, { timeout: NOTICE_WITHIN_MS }).toBe(401);
      expect((await kept.get('/api/v1/version')).status).toBe(200);
      // A token issued a second or more before the user is disabled stops reading it.
      await new Promise((r) => setTimeout(r, 1100));
      expect((await root.patch(`/api/v1/users/${creds.id}`, { disabled: true })).status).toBe(200);
      expect((await kept.get('/api/v1/version')).body).toEqual({ error: 'unauthorized' });
      await expect.poll(async () => (await viaOther(kept)).status, { timeout: NOTICE_WITHIN_MS }).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('answers 501 not_implemented on every method of the not-implemented paths', async () => {
    expect(NOT_IMPLEMENTED_PATHS).toEqual([
      '/api/v1/config',
      '/api/v1/config/globals',
      '/api/v1/config/logging',
      '/api/v1/license',
      '/api/v1/logs',
    ]);
    for (const path of NOT_IMPLEMENTED_PATHS) {
      for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        const r = await root.req(m, path, m === 'GET' || m === 'DELETE' ? undefined : {});
        expect(r.status, `${m} ${path}`).toBe(501);
        expect(r.body).toEqual({ error: 'not_implemented' });
      }
    }
  });

  it('answers 501 not_implemented for a path the router does not have and 405 with Allow for a known path with another method', async () => {
    const a = await root.get('/api/v1/no-such-thing');
    expect(a.status).toBe(501);
    expect(a.body).toEqual({ error: 'not_implemented' });
    // The paths of document 1 that live under a not-implemented one are no exception.
    expect((await root.get('/api/v1/config/other')).body).toEqual({ error: 'not_implemented' });
    expect((await root.get('/api/v1/license/x')).body).toEqual({ error: 'not_implemented' });
    const b = await root.req('DELETE', '/api/v1/audit/actions');
    expect(b.status).toBe(405);
    expect(b.body).toEqual({ error: 'method_not_allowed' });
    expect(b.headers.allow).toBe('GET');
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document of every route, documenting every catalogue code', async () => {
    const r = await new Client(t.plane.app).get('/api/v1/openapi.json');
    expect(r.status).toBe(200);
    const doc = r.body;
    expect(doc.openapi).toBe('3.1.0');
    for (const p of [
      '/health',
      '/api/v1/version',
      '/api/v1/auth/login',
      '/api/v1/auth/logout',
      '/api/v1/auth/me',
      '/api/v1/admin/keys/rotate',
      '/api/v1/audit',
      '/api/v1/audit/{id}',
      '/api/v1/audit/actions',
      '/api/v1/audit/export.csv',
      '/api/v1/audit/stream',
      ...NOT_IMPLEMENTED_PATHS,
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
    const envelope = doc.components.schemas.ErrorEnvelope;
    expect(envelope.required).toEqual(['error']);
    const documented = new Set(envelope.properties.error.examples);
    for (const { code } of describeErrors()) expect(documented.has(code), code).toBe(true);
    for (const { status, code } of describeErrors()) expect(doc.info.description).toContain(`${status} ${code}`);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('GET /api/v1/version without the database', () => {
  it('answers a signed-in caller from memory while every database connection is gone', async () => {
    const own = await startPlane();
    try {
      const c = await login(own.plane.app);
      await own.db.database.close();
      const r = await c.get('/api/v1/version');
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual([
        'debug',
        'dirty',
        'features',
        'git',
        'git_sha',
        'opt_level',
        'profile',
        'target',
        'version',
      ]);
      // The control: a route that reads the database fails now.
      expect((await c.get('/api/v1/audit?limit=1')).status).toBeGreaterThanOrEqual(500);
      // Still not public, and a forged token is refused without a database either.
      expect((await new Client(own.plane.app).get('/api/v1/version')).body).toEqual({ error: 'unauthorized' });
      const forged = new Client(own.plane.app);
      forged.token = c.token!.slice(0, -2) + (c.token!.endsWith('AA') ? 'BB' : 'AA');
      expect((await forged.get('/api/v1/version')).body).toEqual({ error: 'unauthorized' });
    } finally {
      // An in-process PGlite closed under the plane also ends its LISTEN, whose unlisten then fails.
      await own.close().catch((err) => {
        if (own.db.url) throw err;
      });
    }
  });
});
