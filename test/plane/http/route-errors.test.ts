import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeError, describeErrors } from '../../../src/plane/errors.js';
import { everyOperation, routesWithoutErrorList } from '../../../src/plane/http/route-errors.js';
import { startPlane, type TestPlane } from '../harness.js';
import type { Client, Reply } from '../client.js';
import { tenants, type Tenants } from '../inventory.helpers.js';

/**
 * Issue 21 §3: each route lists the codes it may answer (its schema's `errors`), and the OpenAPI
 * text is made from that list (src/plane/http/route-errors.ts, docs/api-errors.md).
 */
type Op = { description?: string; responses: Record<string, { content?: Record<string, { schema: any }> }> };

let t: TestPlane;
let x: Tenants;
let doc: { paths: Record<string, Record<string, Op>> };
const catalogue = new Set(describeErrors().map((e) => e.code));
const universal = new Set(everyOperation.map((n) => describeError(n).code));

/** Each operation's codes by status, read back from its documented responses. */
function documented(op: Op): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [status, r] of Object.entries(op.responses)) {
    const codes = r.content?.['application/json']?.schema?.properties?.error?.enum as string[] | undefined;
    if (codes && /^[45]\d\d$/.test(status)) out.set(Number(status), codes);
  }
  return out;
}
const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ms]) =>
    Object.entries(ms).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, op })),
  );
const opOf = (method: string, path: string) => doc.paths[path]![method.toLowerCase()]!;

/** The answer's code is one the operation documents (or one any operation may answer). */
function expectDeclared(method: string, path: string, res: Reply, code: string): void {
  expect(res.body?.error, `${method} ${path}: ${res.status} ${res.text}`).toBe(code);
  const codes = documented(opOf(method, path)).get(res.status) ?? [];
  expect(codes, `${method} ${path} answers ${res.status} ${code}`).toContain(code);
}

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  doc = (await x.root.get('/api/v1/openapi.json')).body;
});
afterAll(async () => {
  await t?.close();
});

describe('route error lists', () => {
  it('every documented route lists its codes', () => {
    expect(routesWithoutErrorList(t.plane.app)).toEqual([]);
  });

  it('lists only catalogue codes, each as a response of its status and in the description', () => {
    const bad: string[] = [];
    for (const { key, op } of operations()) {
      for (const [status, codes] of documented(op)) {
        for (const code of codes) {
          if (!catalogue.has(code)) bad.push(`${key}: ${code} is not in the catalogue`);
          if (!describeErrors().some((e) => e.code === code && e.status === status))
            bad.push(`${key}: ${code} is not a ${status}`);
          if (!op.description?.includes(code)) bad.push(`${key}: ${code} missing from the description`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('no description carries hand-written Errors: prose: one generated sentence, at the end', () => {
    const bad = operations()
      .filter(({ op }) => (op.description ?? '').split('Errors:').length > 2)
      .map(({ key }) => key);
    expect(bad).toEqual([]);
    for (const { key, op } of operations()) {
      if (documented(op).size === 0) continue;
      expect(op.description, key).toMatch(/Errors: \d{3} [^.]*(; \d{3} [^.]*)*\.$/);
    }
  });

  it('scope codes come with the scope: 401 in the session scope, 403 forbidden behind a role gate', () => {
    expect(documented(opOf('GET', '/api/v1/cameras')).get(401)).toEqual(['unauthorized']);
    expect(documented(opOf('GET', '/api/v1/cameras')).get(503)).toEqual(['db_unavailable', 'db_busy']);
    expect(documented(opOf('POST', '/api/v1/templates')).get(403)).toEqual(
      expect.arrayContaining(['forbidden', 'cross_org']),
    );
    expect(documented(opOf('POST', '/api/v1/auth/login')).get(401)).toContain('invalid_credentials');
    expect(documented(opOf('GET', '/health')).size).toBe(0);
  });

  it('validation codes come from the route mapping: the fields of the body and query', () => {
    const codes = documented(opOf('POST', '/api/v1/templates')).get(400) ?? [];
    expect(codes).toEqual(expect.arrayContaining(['bad_name', 'unknown_field', 'bad_doc', 'bad_request']));
  });
});

describe("a route's refusals are among its listed codes", () => {
  it('as the services answer them', async () => {
    const { root, a, b, anon } = x;
    const id = '00000000-0000-4000-8000-000000000000';
    const doc = { detector_match: 'route-errors.*', title: 'T' };
    expectDeclared('GET', '/api/v1/templates/{id}', await a.admin.get(`/api/v1/templates/${id}`), 'not_found');
    expectDeclared('GET', '/api/v1/templates', await a.operator.get('/api/v1/templates'), 'forbidden');
    expectDeclared('GET', '/api/v1/templates', await anon.get('/api/v1/templates'), 'unauthorized');
    expectDeclared('GET', '/api/v1/templates', await a.admin.get(`/api/v1/templates?org=${b.orgId}`), 'cross_org');
    expectDeclared('POST', '/api/v1/templates', await a.admin.post('/api/v1/templates', { name: '', doc }), 'bad_name');
    const first = await a.admin.post('/api/v1/templates', { name: 'dup', doc });
    expect(first.status, first.text).toBe(201);
    const again = await a.admin.post('/api/v1/templates', { name: 'dup', doc });
    expectDeclared('POST', '/api/v1/templates', again, 'already_exists');
    const bad = await a.admin.post('/api/v1/templates', { name: 'bad', doc: { detector_match: '' } });
    expectDeclared('POST', '/api/v1/templates', bad, 'detector_match_required');
    expectDeclared('GET', '/api/v1/usage', await a.admin.get(`/api/v1/usage?org_id=${b.orgId}`), 'forbidden');
    const login = await anon.post('/api/v1/auth/login', { login: 'nobody', password: 'wrong-password' });
    expectDeclared('POST', '/api/v1/auth/login', login, 'invalid_credentials');
    const report = await a.operator.post('/api/v1/analytics-reports', {});
    expectDeclared('POST', '/api/v1/analytics-reports', report, 'forbidden');
    expectDeclared('GET', '/api/v1/audit', await a.operator.get('/api/v1/audit'), 'audit is not visible to operators');
    expectDeclared('GET', '/api/v1/events', await a.operator.get('/api/v1/events?q=a'), 'event_search_too_short');
    const tag = await a.admin.post('/api/v1/tags', { name: 'same' });
    expect(tag.status, tag.text).toBe(201);
    expectDeclared('POST', '/api/v1/tags', await a.admin.post('/api/v1/tags', { name: 'same' }), 'already_exists');
    const node = await root.post('/api/v1/nodes', {
      name: 'n',
      url: 'ftp://x',
      api_token: 'route-errors-token-0123456789',
    });
    expectDeclared('POST', '/api/v1/nodes', node, 'bad_url');
  });

  it('every catalogue code a route answers to a plain request is one it lists', async () => {
    // A request with an unknown id and an empty body, as root and as an operator: whatever catalogue
    // code comes back must be in that operation's list (or one any operation may answer).
    // As the OpenAPI fuzz: streams never end, logout and key rotation end root's session, the
    // node monitor polls nodes; GET settings answers its documented 500 (no plane.toml here).
    const skip = /stream|logout|keys\/rotate|monitor\/nodes$/;
    const bad: string[] = [];
    const callers: Client[] = [x.root, x.a.operator, x.anon];
    for (const { key, path, method, op } of operations()) {
      if (skip.test(path) || (method === 'get' && path === '/api/v1/settings/plane')) continue;
      const url = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const body = method === 'get' || method === 'delete' ? undefined : {};
      const answers = await Promise.all(callers.map((c) => c.req(method.toUpperCase() as 'GET', url, body)));
      for (const res of answers) {
        const code = res.body?.error as string | undefined;
        if (res.status < 400 || !code || !catalogue.has(code) || universal.has(code)) continue;
        if (!(documented(op).get(res.status) ?? []).includes(code)) bad.push(`${key}: ${res.status} ${code}`);
      }
    }
    expect(bad).toEqual([]);
  }, 300_000);
});
