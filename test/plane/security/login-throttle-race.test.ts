import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, ROOT, type TestPlane } from '../harness.js';
import { seedUser } from '../fixtures.js';

// Finding 4 of issue 10: the login throttle held against parallel attempts. The attempt is
// reserved before the password is checked, so 40 parallel wrong passwords cost 5 checks.
let t: TestPlane;
beforeAll(async () => {
  t = await startPlane({ config: { loginThrottle: { attempts: 5, windowSecs: 300 } } });
});
afterAll(async () => {
  await t?.close();
});

const attempt = (login: string, password: string, ip: string) =>
  t.plane.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { login, password }, remoteAddress: ip });
const failuresOf = async (name: string) =>
  (
    await t.db.database.db
      .selectFrom('audit')
      .select('id')
      .where('action', '=', 'auth.login_failed')
      .where('object_name', '=', name)
      .execute()
  ).length;

describe('login throttle under concurrency', () => {
  it('40 parallel wrong passwords for one login: at most 5 password checks, the rest 429', async () => {
    const orgId = (await t.db.database.db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id;
    await seedUser(t.db.database.db, orgId, 'admin', 'racer');
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => attempt('racer', `wrong-${i}`, `10.9.0.${i + 1}`)),
    );
    const statuses = replies.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401).length).toBe(5);
    expect(statuses.filter((s) => s === 429).length).toBe(35);
    expect(await failuresOf('racer')).toBe(5);
  });

  it('40 parallel unknown logins from one address: at most 20 checks', async () => {
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => attempt(`ghost-${i}`, 'whatever-pass', '10.9.1.1')),
    );
    expect(replies.filter((r) => r.statusCode === 401).length).toBe(20);
    expect(replies.filter((r) => r.statusCode === 429).length).toBe(20);
  });

  it('parallel right passwords are never refused (attempts in flight wait, they do not count as failures)', async () => {
    const replies = await Promise.all(
      Array.from({ length: 15 }, (_, i) => attempt(ROOT.login, ROOT.password, `10.9.3.${i + 1}`)),
    );
    expect(replies.map((r) => r.statusCode)).toEqual(Array(15).fill(200));
  });

  it('a successful login does not use up the address budget', async () => {
    for (let i = 0; i < 25; i++) expect((await attempt(ROOT.login, ROOT.password, '10.9.2.1')).statusCode).toBe(200);
  });
});
