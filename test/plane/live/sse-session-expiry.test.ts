import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { login } from '../client.js';
import { SseReader } from '../sse-client.js';

let t: TestPlane;
beforeAll(async () => {
  t = await startPlane({ config: { sessionTtlSecs: 3 } });
});
afterAll(async () => {
  await t?.close();
});

it('ends an open stream when its session expires: an SSE body does not extend the token', async () => {
  const base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  const c = await login(t.plane.app);
  const started = Date.now();
  const s = await SseReader.open(`${base}/api/v1/audit/stream`, { authorization: `Bearer ${c.token}` });
  expect(s.status).toBe(200);
  await s.until((r) => r.ended, 5000);
  expect(Date.now() - started).toBeGreaterThan(1500);
  expect(t.plane.services.streams.count).toBe(0);
  expect((await c.get('/api/v1/auth/me')).status).toBe(401);
});
