import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, ROOT, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';

let t: TestPlane;
beforeAll(async () => {
  t = await startPlane();
});
afterAll(async () => {
  await t?.close();
});

describe('login, me, logout', () => {
  it('logs in the bootstrap superadmin and answers me', async () => {
    const c = new Client(t.plane.app);
    const r = await c.post('/api/v1/auth/login', ROOT);
    expect(r.status).toBe(200);
    expect(typeof r.body.token).toBe('string');
    expect(r.body.user).toMatchObject({ login: 'root', role: 'superadmin', disabled: false });
    const exp = Date.parse(r.body.expires_at) - Date.now();
    expect(exp).toBeGreaterThan(12 * 3600_000 - 60_000);
    expect(exp).toBeLessThanOrEqual(12 * 3600_000);
    c.token = r.body.token;
    const me = await c.get('/api/v1/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.user.login).toBe('root');
  });

  it('answers 401 unauthorized without a token and after logout', async () => {
    const anon = new Client(t.plane.app);
    expect((await anon.get('/api/v1/auth/me')).body).toEqual({ error: 'unauthorized' });
    const c = await login(t.plane.app);
    expect((await c.post('/api/v1/auth/logout')).status).toBe(204);
    const after = await c.get('/api/v1/auth/me');
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'unauthorized' });
  });

  it('answers an unknown login and a wrong password alike', async () => {
    const c = new Client(t.plane.app);
    const a = await c.post('/api/v1/auth/login', { login: 'nobody', password: 'whatever-1' });
    const b = await c.post('/api/v1/auth/login', { login: 'root', password: 'wrong-password' });
    expect(a.status).toBe(401);
    expect(b.status).toBe(401);
    expect(a.body).toEqual({ error: 'invalid_credentials' });
    expect(a.text).toBe(b.text);
  });
});
