import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';

let t: TestPlane;
let root: Client;
beforeAll(async () => {
  t = await startPlane();
  root = await login(t.plane.app);
});
afterAll(async () => {
  await t?.close();
});

it('checks JSON bodies exactly as sent: no type coercion', async () => {
  const r = await new Client(t.plane.app).post('/api/v1/auth/login', { login: 12345678, password: 'x-password' });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatch(/^body\/login must be string/);
  const tag = await root.post('/api/v1/tags', { name: 42 });
  expect(tag.status).toBe(400);
});

it('still coerces query strings to their types', async () => {
  const r = await root.get('/api/v1/audit?limit=2');
  expect(r.status).toBe(200);
  expect(r.body.rows.length).toBeLessThanOrEqual(2);
});

it('answers bad JSON with bad_json', async () => {
  const r = await t.plane.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    headers: { 'content-type': 'application/json' },
    payload: '{"login":',
  });
  expect(r.statusCode).toBe(400);
  expect(r.json()).toEqual({ error: 'bad_json' });
});

it.each([
  ['a control character inside', 'a\u0001b'],
  ['only a control character', '\u0007'],
  ['only spaces', '   '],
])('refuses a name with %s', async (_what, name) => {
  const r = await root.post('/api/v1/tags', { name });
  expect(r.status).toBe(400);
});

it('accepts a name with inner spaces and letters beyond ASCII', async () => {
  expect((await root.post('/api/v1/tags', { name: 'Entrée Nord 2' })).status).toBe(201);
});
