import { afterAll, beforeAll, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { startPlane, type TestPlane } from '../harness.js';
import { login } from '../client.js';

let t: TestPlane;
beforeAll(async () => {
  t = await startPlane({
    config: { live: { globalCapacity: 10, perPrincipal: 5, heartbeatMs: 60_000, ringSize: 100, lagBytes: 2048 } },
  });
});
afterAll(async () => {
  await t?.close();
});

/** A response body whose reader never reads: every write stays queued. */
function stalledResponse() {
  const chunks: string[] = [];
  const raw = new Writable({
    highWaterMark: 1,
    write(chunk, _enc, _cb) {
      chunks.push(String(chunk)); /* never acknowledged */
    },
  }) as any;
  raw.writeHead = () => raw;
  raw.flushHeaders = () => {};
  return {
    reply: { raw, hijack() {} } as any,
    req: { headers: {}, raw: { socket: { setNoDelay() {} } } } as any,
    chunks,
    raw,
  };
}

it('ends a lagging subscriber with a terminal resync-required instead of buffering', async () => {
  const c = await login(t.plane.app);
  const principal = await t.plane.services.auth.authenticate(c.token!, { ip: '127.0.0.1', userAgent: 'test' });
  const { reply, req, chunks, raw } = stalledResponse();
  await t.plane.services.audit.stream(req, reply, principal, {});
  expect(t.plane.services.streams.count).toBe(1);
  for (let i = 0; i < 30 && !raw.writableEnded; i++) await login(t.plane.app);
  await new Promise((r) => setTimeout(r, 100));
  expect(raw.writableEnded).toBe(true);
  const queued = (raw._writableState.getBuffer() as Array<{ chunk: unknown }>).map((b) => String(b.chunk));
  expect([...chunks, ...queued].join('')).toMatch(/: resync-required\n\n$/);
  expect(t.plane.services.streams.count).toBe(0);
});
