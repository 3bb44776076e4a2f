import { describe, expect, it } from 'vitest';
import { Client, login } from '../client.js';
import { adminA, auditWorld, operatorA, orgA, orgB, root, t } from './audit.helpers.js';

// GET /api/v1/audit: scope, pages, checks, filters and the search.
auditWorld();

describe('GET /api/v1/audit', () => {
  it('lists newest first with a g:<n> stream cursor and no next field', async () => {
    const r = await root.get('/api/v1/audit');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['rows', 'stream_cursor']);
    expect(r.body.stream_cursor).toMatch(/^g:\d+$/);
    const times = r.body.rows.map((x: any) => Date.parse(x.occurred_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(Object.keys(r.body.rows[0]).sort()).toEqual([
      'action',
      'actor_id',
      'actor_name',
      'actor_role',
      'ended_at',
      'id',
      'ip',
      'node_id',
      'object_id',
      'object_name',
      'object_type',
      'occurred_at',
      'org_id',
      'params',
      'user_agent',
    ]);
  });

  it('refuses role user with the operator message on every audit endpoint', async () => {
    for (const url of [
      '/api/v1/audit',
      '/api/v1/audit/actions',
      '/api/v1/audit/export.csv',
      '/api/v1/audit/stream',
      `/api/v1/audit/00000000-0000-7000-8000-000000000000?occurred_at=2026-01-01T00:00:00Z`,
    ]) {
      const r = await operatorA.get(url);
      expect(r.status, url).toBe(403);
      expect(r.body, url).toEqual({ error: 'audit is not visible to operators' });
    }
  });

  it('limits an organisation administrator to its own organisation', async () => {
    const mine = await adminA.get('/api/v1/audit?limit=500');
    expect(mine.status).toBe(200);
    expect(mine.body.rows.length).toBeGreaterThan(0);
    expect(mine.body.rows.every((r: any) => r.org_id === orgA)).toBe(true);
    expect((await adminA.get(`/api/v1/audit?org=${orgA}`)).status).toBe(200);
    const foreign = await adminA.get(`/api/v1/audit?org=${orgB}`);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ error: 'cross_org' });
  });

  it('lets a superadmin see all organisations and narrow with org', async () => {
    const all = await root.get('/api/v1/audit?limit=500');
    const orgs = new Set(all.body.rows.map((r: any) => r.org_id));
    expect(orgs.has(orgA) && orgs.has(orgB)).toBe(true);
    const narrowed = await root.get(`/api/v1/audit?org=${orgB}&limit=500`);
    expect(narrowed.body.rows.length).toBeGreaterThan(0);
    expect(narrowed.body.rows.every((r: any) => r.org_id === orgB)).toBe(true);
  });

  it('pages with before_ts and before_id without overlap or gap', async () => {
    for (let i = 0; i < 4; i++) await login(t.plane.app);
    const whole = (await root.get('/api/v1/audit?limit=500')).body.rows.map((r: any) => r.id);
    const seen: string[] = [];
    let url = '/api/v1/audit?limit=3';
    for (;;) {
      const page = (await root.get(url)).body.rows;
      seen.push(...page.map((r: any) => r.id));
      if (page.length < 3) break;
      const last = page[page.length - 1];
      url = `/api/v1/audit?limit=3&before_ts=${encodeURIComponent(last.occurred_at)}&before_id=${last.id}`;
    }
    expect(seen).toEqual(whole);
  });

  it.each([
    ['before_ts alone', `before_ts=2026-01-01T00:00:00Z`, 'bad_audit_cursor'],
    ['before_id alone', `before_id=00000000-0000-7000-8000-000000000000`, 'bad_audit_cursor'],
    ['from after to', 'occurred_from=2026-02-01T00:00:00Z&occurred_to=2026-01-01T00:00:00Z', 'bad_audit_range'],
    ['q of one character', 'q=a&occurred_from=2026-01-01T00:00:00Z', 'audit_search_must_be_2_to_128_chars'],
    [
      'q of 129 characters',
      `q=${'a'.repeat(129)}&occurred_from=2026-01-01T00:00:00Z`,
      'audit_search_must_be_2_to_128_chars',
    ],
    ['q without occurred_from', 'q=login', 'audit_search_requires_explicit_range'],
    [
      'q over 32 days',
      'q=login&occurred_from=2026-01-01T00:00:00Z&occurred_to=2026-02-02T00:00:01Z',
      'audit_search_range_max_31_days',
    ],
    ['unknown action', 'action=auth.nonsense', 'bad_audit_action'],
    ['object_type of 65', `object_type=${'x'.repeat(65)}`, 'bad_audit_object_type'],
  ])('answers 400 for %s', async (_name, qs, code) => {
    const r = await root.get(`/api/v1/audit?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: code });
  });

  it('counts a search window without occurred_to up to now', async () => {
    const from = (days: number) => encodeURIComponent(new Date(Date.now() - days * 86_400_000).toISOString());
    const over = await root.get(`/api/v1/audit?q=login&occurred_from=${from(31.01)}`);
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ error: 'audit_search_range_max_31_days' });
    expect((await root.get(`/api/v1/audit?q=login&occurred_from=${from(30.99)}`)).status).toBe(200);
  });

  it('answers an empty page, not an error, for a search without any word in it', async () => {
    const from = encodeURIComponent(new Date(Date.now() - 3600_000).toISOString());
    for (const q of ['!!', '  ', '::', '\\\\', "''", '&|']) {
      const r = await root.get(`/api/v1/audit?q=${encodeURIComponent(q)}&occurred_from=${from}`);
      expect(r.status, q).toBe(200);
      expect(r.body.rows, q).toEqual([]);
      expect(r.body.stream_cursor).toMatch(/^g:\d+$/);
      const csv = await root.get(`/api/v1/audit/export.csv?q=${encodeURIComponent(q)}&occurred_from=${from}`);
      expect(csv.status, q).toBe(200);
      expect(csv.text.split('\r\n').filter(Boolean)).toHaveLength(1);
    }
  });

  it('accepts q over exactly 31 days and 128 characters', async () => {
    const r = await root.get(
      `/api/v1/audit?q=${'a'.repeat(128)}&occurred_from=2026-01-01T00:00:00Z&occurred_to=2026-02-01T00:00:00Z`,
    );
    expect(r.status).toBe(200);
  });

  it('limits the page to 1..500', async () => {
    expect((await root.get('/api/v1/audit?limit=1')).body.rows).toHaveLength(1);
    expect((await root.get('/api/v1/audit?limit=0')).status).toBe(400);
    expect((await root.get('/api/v1/audit?limit=501')).status).toBe(400);
  });

  it('filters by action, actor_id, object_type and object_id', async () => {
    const r = await root.get('/api/v1/audit?action=auth.login&limit=500');
    expect(r.body.rows.length).toBeGreaterThan(0);
    expect(r.body.rows.every((x: any) => x.action === 'auth.login')).toBe(true);
    const one = r.body.rows[0];
    const byActor = await root.get(`/api/v1/audit?actor_id=${one.actor_id}&limit=500`);
    expect(byActor.body.rows.every((x: any) => x.actor_id === one.actor_id)).toBe(true);
    const byObject = await root.get(`/api/v1/audit?object_id=${one.object_id}&object_type=session`);
    expect(byObject.body.rows.map((x: any) => x.id)).toEqual([one.id]);
    const none = await root.get(`/api/v1/audit?node_id=${one.id}`);
    expect(none.body.rows).toEqual([]);
  });

  it('filters by time and searches words, also inside params', async () => {
    await new Client(t.plane.app).post('/api/v1/auth/login', { login: 'admin-a', password: 'not-it-at-all' });
    const from = new Date(Date.now() - 3600_000).toISOString();
    const r = await root.get(`/api/v1/audit?q=wrong_pass&occurred_from=${encodeURIComponent(from)}`);
    expect(r.status).toBe(200);
    expect(r.body.rows.length).toBeGreaterThan(0);
    expect(r.body.rows.every((x: any) => x.action === 'auth.login_failed')).toBe(true);
    const future = await root.get(
      `/api/v1/audit?occurred_from=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`,
    );
    expect(future.body.rows).toEqual([]);
  });
});
