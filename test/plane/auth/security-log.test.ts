import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { ManualClock, startPlane, type TestPlane } from '../harness.js';
import { login, type Client } from '../client.js';
import { tenants, unique } from '../inventory.helpers.js';

// Issue 25, item 16: failed logins, throttled addresses and refused tokens are warn lines of the
// plane's log (what the log tail and a log shipper read), never with the password or the token.
// Each secret below is a canary: it must appear in no line of the log.
const canary = (what: string) => `${what}-${randomBytes(6).toString('hex')}-canary`;
const clock = new ManualClock(Date.UTC(2026, 10, 26, 9));
let t: TestPlane;
let root: Client;
/** The users whose logins the tests fail (root's own budget stays whole for the other logins). */
let victims: string[];
beforeAll(async () => {
  t = await startPlane({ clock });
  const x = await tenants(t);
  root = x.root;
  const me = async (c: Client) => (await c.get('/api/v1/auth/me')).body.user.login as string;
  victims = [await me(x.a.admin), await me(x.b.admin)];
});
afterAll(async () => {
  await t?.close();
});

interface Line {
  level: number;
  event?: string;
  msg: string;
  [k: string]: unknown;
}
const lines = (): Line[] =>
  t.logs.text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
const warns = (event: string, ip?: string) =>
  lines().filter((l) => l.level === 40 && l.event === event && (ip === undefined || l.ip === ip));

function send(
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  ip: string,
  opts: { token?: string; body?: unknown } = {},
) {
  return t.plane.app.inject({
    method,
    url,
    remoteAddress: ip,
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
    ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
  });
}
const tryLogin = (ip: string, body: { login: string; password: string }) =>
  send('POST', '/api/v1/auth/login', ip, { body });

describe("the plane's log at warn", () => {
  it("a failed login: the address, the user's login and the reason, never the password", async () => {
    const password = canary('password');
    expect((await tryLogin('203.0.113.1', { login: victims[0]!, password })).statusCode).toBe(401);
    expect(warns('auth.login_failed', '203.0.113.1')).toEqual([
      expect.objectContaining({ msg: 'login failed', login: victims[0], reason: 'wrong_password' }),
    ]);
    expect(t.logs.text).not.toContain(password);
  });

  it('an unknown login is not written (it may be a password typed into the login field)', async () => {
    const typed = canary('typed-in-login');
    expect((await tryLogin('203.0.113.2', { login: typed, password: canary('pw') })).statusCode).toBe(401);
    expect(warns('auth.login_failed', '203.0.113.2')).toEqual([
      expect.objectContaining({ login: '(unknown login)', reason: 'unknown_login' }),
    ]);
    expect(t.logs.text).not.toContain(typed);
  });

  it('a throttled address: one line a minute per address, then how many were left out', async () => {
    const ip = '203.0.113.3';
    const passwords = Array.from({ length: 25 }, (_, i) => canary(`guess${i}`));
    const statuses: number[] = [];
    for (const password of passwords)
      statuses.push((await tryLogin(ip, { login: unique('ghost'), password })).statusCode);
    // 20 failures fill the address's budget (4 x 5 attempts), the rest are refused.
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    expect(warns('auth.login_failed', ip)).toHaveLength(20);
    expect(warns('auth.login_throttled', ip)).toEqual([
      expect.objectContaining({ budget: 'address', msg: 'login refused: too many failed attempts' }),
    ]);
    clock.advance(61_000);
    expect((await tryLogin(ip, { login: unique('ghost'), password: canary('late') })).statusCode).toBe(429);
    expect(warns('auth.login_throttled', ip)).toEqual([expect.anything(), expect.objectContaining({ repeated: 4 })]);
    for (const p of passwords) expect(t.logs.text).not.toContain(p);
  });

  it('a throttled login is said the same way', async () => {
    const ip = '203.0.113.4';
    for (let i = 0; i < 5; i++)
      expect((await tryLogin(ip, { login: victims[1]!, password: canary('x') })).statusCode).toBe(401);
    expect((await tryLogin(ip, { login: victims[1]!, password: canary('x') })).statusCode).toBe(429);
    expect(warns('auth.login_throttled', ip)).toEqual([expect.objectContaining({ budget: 'login' })]);
  });

  it('refused module tokens: unknown, disabled, a session token, none; never the secret', async () => {
    const bogus = `amt_${canary('bogus')}`;
    const made = await root.post('/api/v1/module-tokens', { name: unique('mod'), rate_limit: 1000 });
    expect(made.status, made.text).toBe(201);
    expect((await root.patch(`/api/v1/module-tokens/${made.body.id}`, { enabled: false })).status).toBe(200);
    const events = { events: [{ detector: 'x.y', occurred_at: new Date(clock.now()).toISOString() }] };
    for (const [ip, token] of [
      ['198.51.100.1', bogus],
      ['198.51.100.2', made.body.secret],
      ['198.51.100.3', root.token!],
      ['198.51.100.4', undefined],
    ] as const) {
      expect((await send('POST', '/api/v1/events', ip, { token, body: events })).statusCode).toBe(401);
    }
    expect(warns('module_token.refused').map((l) => [l.ip, l.reason, l.route])).toEqual([
      ['198.51.100.1', 'unknown_or_disabled', 'POST /api/v1/events'],
      ['198.51.100.2', 'unknown_or_disabled', 'POST /api/v1/events'],
      ['198.51.100.3', 'not_a_module_token', 'POST /api/v1/events'],
      ['198.51.100.4', 'missing', 'POST /api/v1/events'],
    ]);
    // The close route takes either credential: a module-token secret it does not know is refused the same way.
    const close = await send('PATCH', '/api/v1/events/0190c0de-0000-7000-8000-000000000000', '198.51.100.5', {
      token: bogus,
      body: { ended_at: '2026-11-26T09:00:00Z' },
    });
    expect(close.statusCode).toBe(401);
    expect(warns('module_token.refused', '198.51.100.5').map((l) => [l.reason, l.route])).toEqual([
      ['unknown_or_disabled', 'PATCH /api/v1/events/:id'],
    ]);
    for (const secret of [bogus, made.body.secret, root.token!]) expect(t.logs.text).not.toContain(secret);
  });

  it('a forged session token: a line per address and minute, never the token', async () => {
    const [h, ,] = root.token!.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: canary('sub'), sid: canary('sid') })).toString('base64url')}.${canary('sig')}`;
    for (let i = 0; i < 3; i++)
      expect((await send('GET', '/api/v1/auth/me', '192.0.2.7', { token: forged })).statusCode).toBe(401);
    expect((await send('GET', '/api/v1/version', '192.0.2.8', { token: 'not-a-jwt' })).statusCode).toBe(401);
    expect(warns('auth.token_refused').map((l) => [l.ip, l.reason])).toEqual([
      ['192.0.2.7', 'bad_signature'],
      ['192.0.2.8', 'malformed'],
    ]);
    expect(t.logs.text).not.toContain(forged.split('.')[1]);
    expect(t.logs.text).not.toContain(forged.split('.')[2]);
  });

  it('an expired session is an ordinary 401, not a warn line', async () => {
    const c = await login(t.plane.app);
    clock.advance(13 * 3600_000);
    expect((await send('GET', '/api/v1/auth/me', '192.0.2.9', { token: c.token! })).statusCode).toBe(401);
    expect(warns('auth.token_refused', '192.0.2.9')).toEqual([]);
  });

  it('the log tail shows them', async () => {
    const page = await (await login(t.plane.app)).get('/api/v1/logs/plane?level=warn&q=login%20failed');
    expect(page.status, page.text).toBe(200);
    expect(
      page.body.entries.some(
        (e: { level: string; message: string }) => e.level === 'warn' && e.message.includes('"ip":"203.0.113.1"'),
      ),
    ).toBe(true);
  });
});
