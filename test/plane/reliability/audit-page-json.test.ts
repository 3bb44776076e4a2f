import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { login, type Client } from '../client.js';

// GET /api/v1/audit has the database render the page as JSON (the bench's hot path); this
// proves it equals the rows the plane renders itself (jsonRow), for awkward values too.
let t: TestPlane;
let root: Client;
beforeAll(async () => {
  t = await startPlane();
  root = await login(t.plane.app);
  const me = (await root.get('/api/v1/auth/me')).body.user;
  const { audit } = t.plane.services;
  const actor = {
    id: me.id,
    name: 'Zoë "quotes" \\ back\nslash\ttab \u2028 😀',
    role: 'superadmin',
    orgId: me.org_id,
    ip: '::1',
    userAgent: 'ua/1 <script>',
  };
  await t.db.database.db.transaction().execute((trx) =>
    audit.record(trx, {
      actor,
      action: 'camera.update',
      objectType: 'camera',
      objectId: '0190a000-0000-7000-8000-000000000001',
      objectName: "=cmd|' /C calc'!A0",
      params: {
        nested: { a: [1, 2.5, null, true, 'x'], '': 'empty key' },
        big: 2 ** 53 - 1,
        unicode: 'ü\u0000'.slice(0, 1),
      },
      nodeId: '0190a000-0000-7000-8000-000000000002',
    }),
  );
  await t.db.database.db.transaction().execute((trx) =>
    audit.record(trx, {
      actor,
      action: 'export.dvr',
      objectType: 'camera',
      objectId: null,
      objectName: '',
      params: {},
      endedAt: new Date(Date.now() + 1234),
    }),
  );
});
afterAll(async () => {
  await t?.close();
});

describe('the audit page rendered by the database', () => {
  it('equals the plane-rendered rows field by field, in the same order, with the same cursor', async () => {
    const r = await root.get('/api/v1/audit?limit=500');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    const p = await t.db.database.db.selectFrom('users').select(['id', 'org_id']).executeTakeFirstOrThrow();
    const principal = {
      userId: p.id,
      orgId: p.org_id,
      role: 'superadmin' as const,
      login: 'root',
      name: 'root',
      sessionId: 'x',
      expiresAt: Date.now() + 60_000,
      ip: '',
      userAgent: '',
    };
    const mine = await t.plane.services.audit.list(principal, { limit: 500 });
    expect(r.body.rows.length).toBeGreaterThanOrEqual(3);
    expect(r.body).toEqual(mine);
    for (let i = 0; i < r.body.rows.length; i++)
      expect(Object.keys(r.body.rows[i])).toEqual(Object.keys(mine.rows[i]!));
    expect(r.body.rows[0].ended_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(r.body.rows[1].params.big).toBe(2 ** 53 - 1);
  });

  it('pages with before_ts/before_id exactly like the rows say, and answers an empty page as []', async () => {
    const all = (await root.get('/api/v1/audit?limit=500')).body.rows;
    const seen: string[] = [];
    let q = '/api/v1/audit?limit=1';
    for (;;) {
      const page = await root.get(q);
      expect(page.status).toBe(200);
      if (!page.body.rows.length) {
        expect(page.text).toMatch(/^\{"rows":\[\],"stream_cursor":"g:\d+"\}$/);
        break;
      }
      const last = page.body.rows[page.body.rows.length - 1];
      seen.push(...page.body.rows.map((x: any) => x.id));
      q = `/api/v1/audit?limit=1&before_ts=${encodeURIComponent(last.occurred_at)}&before_id=${last.id}`;
    }
    expect(seen).toEqual(all.map((x: any) => x.id));
  });
});
