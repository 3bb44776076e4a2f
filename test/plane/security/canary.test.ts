import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startPlane, CANARY, ROOT, type TestPlane } from '../harness.js';
import { Client, login, type Reply } from '../client.js';

let t: TestPlane;
beforeAll(async () => {
  t = await startPlane({ config: { loginThrottle: { attempts: 1000, windowSecs: 60 } } });
  // request lines are debug lines: logged here so that the test sees every path a secret could take
  t.plane.services.logs.setCaptureLevel('debug');
});
afterAll(async () => {
  await t?.close();
});

describe('secrets never reach logs, audit params, error bodies or CSV', () => {
  it('after logins, failed logins, user and node changes with canary secrets, no canary and no token is anywhere', async () => {
    expect(ROOT.password).toContain(CANARY);
    const replies: Reply[] = [];
    const tokens: string[] = [];
    const anon = new Client(t.plane.app);
    const keep = (r: Reply) => {
      replies.push(r);
      return r;
    };

    const root = await login(t.plane.app);
    tokens.push(root.token!);
    keep(await anon.post('/api/v1/auth/login', { login: ROOT.login, password: `wrong-${CANARY}` }));
    keep(await anon.post('/api/v1/auth/login', { login: `ghost`, password: `${CANARY}-ghost` }));
    keep(await anon.post('/api/v1/auth/login', { login: ROOT.login, password: `${CANARY}`.repeat(2000) }));
    keep(await anon.post('/api/v1/auth/login', { login: ROOT.login, password: 42 }));
    keep(await anon.post('/api/v1/auth/login', { login: ROOT.login }));

    const created = keep(
      await root.post('/api/v1/users', { login: 'canary-user', password: `user-${CANARY}-1`, role: 'admin' }),
    );
    expect(created.status).toBe(201);
    keep(await root.post('/api/v1/users', { login: 'canary-short', password: CANARY.slice(0, 3) }));
    keep(await root.patch(`/api/v1/users/${created.body.id}`, { password: `user-${CANARY}-2` }));
    const user = await login(t.plane.app, { login: 'canary-user', password: `user-${CANARY}-2` });
    tokens.push(user.token!);
    keep(await user.get('/api/v1/auth/me'));
    keep(await user.post('/api/v1/auth/logout'));
    keep(await user.get('/api/v1/auth/me'));

    const node = keep(
      await root.post('/api/v1/nodes', {
        name: 'canary-node',
        url: 'http://127.0.0.1:9',
        api_token: `tok-${CANARY}`,
        auth_backend_secret: `sec-${CANARY}`,
      }),
    );
    expect(node.status).toBe(201);
    keep(await root.patch(`/api/v1/nodes/${node.body.id}`, { api_token: `tok2-${CANARY}` }));
    keep(await root.post('/api/v1/nodes', { name: 'bad-node', url: 'not a url', api_token: `tok3-${CANARY}` }));

    // A bearer value with the mark, and the session tokens themselves in headers and queries.
    keep(await anon.as(`${CANARY}.${CANARY}.${CANARY}`).get('/api/v1/auth/me'));
    keep(await root.get(`/api/v1/audit?limit=1&object_type=${encodeURIComponent('x')}`));
    keep(await root.req('GET', '/api/v1/auth/me', undefined, { cookie: `session=${tokens[0]}` }));

    const audit = keep(await root.get('/api/v1/audit?limit=500'));
    expect(audit.status).toBe(200);
    const actions = new Set(audit.body.rows.map((r: any) => r.action));
    for (const a of [
      'auth.login',
      'auth.login_failed',
      'auth.logout',
      'user.create',
      'user.update',
      'node.create',
      'node.update',
    ])
      expect(actions).toContain(a);
    for (const row of audit.body.rows) {
      const one = keep(await root.get(`/api/v1/audit/${row.id}?occurred_at=${encodeURIComponent(row.occurred_at)}`));
      expect(one.status).toBe(200);
    }
    const csv = keep(await root.get('/api/v1/audit/export.csv'));
    expect(csv.status).toBe(200);
    expect(csv.text.split('\r\n').length).toBeGreaterThan(10);

    const marks = [CANARY, ...tokens, ...tokens.map((tk) => tk.split('.')[2]!)];
    for (const r of replies) for (const m of marks) expect(r.text).not.toContain(m);

    // Logs: the requests were logged, nothing secret was.
    expect(t.logs.text).toContain('/api/v1/auth/login');
    for (const m of marks) expect(t.logs.text).not.toContain(m);

    // Nor does any row of any table hold one in clear.
    const tables = await sql<{
      name: string;
    }>`select tablename as name from pg_tables where schemaname = 'public'`.execute(t.db.database.db);
    expect(tables.rows.length).toBeGreaterThan(5);
    for (const { name } of tables.rows) {
      const rows = await sql.raw<{ t: string }>(`select x::text as t from "${name}" x`).execute(t.db.database.db);
      for (const r of rows.rows) for (const m of [CANARY, ...tokens]) expect(r.t, name).not.toContain(m);
    }
  });
});
