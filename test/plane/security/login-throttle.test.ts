import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { startPlane, ROOT, type TestPlane } from '../harness.js';
import { seedUser } from '../fixtures.js';

let t: TestPlane;
beforeAll(async () => {
  t = await startPlane({ config: { loginThrottle: { attempts: 5, windowSecs: 300 } } });
});
afterAll(async () => {
  await t?.close();
});

async function attempt(login: string, password: string, ip: string) {
  const r = await t.plane.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { login, password },
    remoteAddress: ip,
  });
  return { status: r.statusCode, body: r.json(), headers: r.headers, text: r.body };
}

function expectThrottled(r: Awaited<ReturnType<typeof attempt>>) {
  expect(r.status).toBe(429);
  expect(Object.keys(r.body).sort()).toEqual(['error', 'retry_after']);
  expect(r.body.error).toBe('too_many_login_attempts');
  expect(Number.isInteger(r.body.retry_after)).toBe(true);
  expect(r.body.retry_after).toBeGreaterThanOrEqual(1);
  expect(r.body.retry_after).toBeLessThanOrEqual(300);
  expect(r.headers['retry-after']).toBe(String(r.body.retry_after));
}

describe('login throttling', () => {
  it('throttles one login after 5 failures from anywhere, even with the right password; other logins pass', async () => {
    const orgId = (await t.db.database.db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id;
    const victim = await seedUser(t.db.database.db, orgId, 'admin', 'victim');
    for (let i = 0; i < 5; i++) {
      const r = await attempt('victim', `wrong-${i}`, `10.0.1.${i + 1}`);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: 'invalid_credentials' });
    }
    expectThrottled(await attempt('victim', 'wrong-6', '10.0.1.99'));
    expectThrottled(await attempt('VICTIM', victim.password, '10.0.1.100'));
    // Neither the other users nor those addresses are locked out.
    expect((await attempt(ROOT.login, ROOT.password, '10.0.1.1')).status).toBe(200);
  });

  it('throttles one address after 20 failures across logins; other addresses pass', async () => {
    for (let i = 0; i < 20; i++) {
      const r = await attempt(`nobody-${i}`, 'whatever-pass', '10.0.2.1');
      expect(r.status).toBe(401);
    }
    const r = await attempt('someone-else', 'whatever-pass', '10.0.2.1');
    expectThrottled(r);
    expectThrottled(await attempt(ROOT.login, ROOT.password, '10.0.2.1'));
    expect((await attempt(ROOT.login, ROOT.password, '10.0.2.2')).status).toBe(200);
  });

  it('refuses a throttled attempt before any password check: only the 5 checked failures are audited', async () => {
    const rows = await t.db.database.db
      .selectFrom('audit')
      .select('object_name')
      .where('action', '=', 'auth.login_failed')
      .where('object_name', '=', 'victim')
      .execute();
    expect(rows.length).toBe(5);
  });
});

describe('an unknown login and a wrong password', () => {
  it('answer with the same status, headers and body, in about the same time', async () => {
    // Each round from its own address, and a right password after the wrong one (which
    // clears the login's failure count), so that the throttle never steps in.
    let round = 0;
    const go = async (login: string, password = 'not-the-password') => {
      const t0 = performance.now();
      const r = await t.plane.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { login, password },
        remoteAddress: `10.0.3.${round}`,
      });
      return {
        ms: performance.now() - t0,
        status: r.statusCode,
        text: r.body,
        type: r.headers['content-type'],
        keys: Object.keys(r.headers).sort(),
      };
    };
    await go(ROOT.login);
    await go('warm-up-unknown');
    await go(ROOT.login, ROOT.password);
    const unknown: number[] = [],
      wrong: number[] = [];
    for (round = 1; round <= 10; round++) {
      const a = await go(`unknown-${round}`);
      const b = await go(ROOT.login);
      expect((await go(ROOT.login, ROOT.password)).status).toBe(200);
      expect(a.status).toBe(401);
      expect({ status: b.status, text: b.text, type: b.type, keys: b.keys }).toEqual({
        status: a.status,
        text: a.text,
        type: a.type,
        keys: a.keys,
      });
      expect(JSON.parse(a.text)).toEqual({ error: 'invalid_credentials' });
      unknown.push(a.ms);
      wrong.push(b.ms);
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const ratio = median(unknown) / median(wrong);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});

describe('one budget for every plane process', () => {
  it('counts the failures sent to two processes on one database together', async () => {
    const other = await startPlane({ db: t.db, config: { loginThrottle: { attempts: 5, windowSecs: 300 } } });
    try {
      const orgId = (await t.db.database.db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id;
      await seedUser(t.db.database.db, orgId, 'user', 'shared-victim');
      for (let i = 0; i < 5; i++) {
        const app = i % 2 ? other.plane.app : t.plane.app;
        const r = await app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { login: 'shared-victim', password: `wrong-${i}` },
          remoteAddress: `10.0.4.${i + 1}`,
        });
        expect(r.statusCode).toBe(401);
      }
      for (const app of [t.plane.app, other.plane.app]) {
        const r = await app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { login: 'shared-victim', password: 'wrong-again' },
          remoteAddress: '10.0.4.99',
        });
        expect(r.statusCode).toBe(429);
        expect(r.json().error).toBe('too_many_login_attempts');
      }
      // The login is not stored as such: the counters hold a hash of it.
      const keys = (
        await t.db.database.db
          .selectFrom('login_throttle' as any)
          .select('key' as any)
          .execute()
      ).map((k: any) => String(k.key));
      expect(keys.some((k) => k.toLowerCase().includes('shared-victim'))).toBe(false);
      expect(keys.some((k) => k.startsWith('login:'))).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('prunes counters whose window has ended, and only those', async () => {
    const { loginThrottleStore } = await import('../../../src/plane/auth/login-throttle.store.js');
    const db = t.db.database.db;
    const { sql } = await import('kysely');
    await sql`insert into login_throttle (key, points, expire) values ('addr:old', 3, ${Date.now() - 1000}), ('addr:live', 3, ${Date.now() + 60_000})`.execute(
      db,
    );
    await loginThrottleStore.pruneExpired(db, Date.now(), 1000);
    const left = (
      await sql<{ key: string }>`select key from login_throttle where key in ('addr:old', 'addr:live')`.execute(db)
    ).rows.map((r) => r.key);
    expect(left).toEqual(['addr:live']);
    expect(t.plane.services.jobs.list().map((j) => j.name)).toContain('auth.login_throttle_prune');
  });
});
