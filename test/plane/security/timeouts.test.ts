import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { startPlane, type TestPlane } from '../harness.js';

// Finding 3 of issue 10: header, body and idle time-outs, and a shutdown bounded even with
// stalled clients. Short limits here so the test takes seconds; the defaults are in limits.ts.
const http = {
  headersTimeoutMs: 600,
  requestTimeoutMs: 1_000,
  idleTimeoutMs: 1_500,
  keepAliveTimeoutMs: 500,
  drainMs: 800,
};
let t: TestPlane;
let port = 0;
beforeAll(async () => {
  t = await startPlane({ config: { http } });
  await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.plane.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await t?.close();
});

/** Opens a connection, writes `text`, and resolves with how long the server kept it open (ms). */
function heldFor(text: string, giveUpMs = 6_000): Promise<{ ms: number; socket: Socket; closed: Promise<number> }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text);
      const closed = new Promise<number>((done) => {
        const timer = setTimeout(() => done(Infinity), giveUpMs);
        socket.on('close', () => {
          clearTimeout(timer);
          done(Date.now() - started);
        });
      });
      resolve({ ms: 0, socket, closed });
    });
    socket.on('error', () => {});
    socket.resume();
  });
}

const STALLED_LOGIN =
  'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"lo';

describe('HTTP time-outs', () => {
  it('closes a request whose headers never finish', async () => {
    const c = await heldFor('POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\n');
    expect(await c.closed).toBeLessThan(3_000);
  });

  it('closes a request whose body never finishes (200 of them)', async () => {
    const all = await Promise.all(Array.from({ length: 200 }, () => heldFor(STALLED_LOGIN)));
    const times = await Promise.all(all.map((c) => c.closed));
    expect(Math.max(...times)).toBeLessThan(4_000);
  });

  it('closes an idle keep-alive connection', async () => {
    const c = await heldFor('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await c.closed).toBeLessThan(3_000);
  });
});

describe('shutdown', () => {
  it('ends within the drain bound even with a stalled client', async () => {
    const own = await startPlane({
      config: { http: { ...http, headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, idleTimeoutMs: 60_000 } },
    });
    await own.plane.app.listen({ host: '127.0.0.1', port: 0 });
    const p = (own.plane.app.server.address() as AddressInfo).port;
    const s = connect(p, '127.0.0.1', () => s.write(STALLED_LOGIN));
    s.on('error', () => {});
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const closing = own.plane.close().then(() => Date.now() - started);
    const took = await Promise.race([closing, new Promise<number>((r) => setTimeout(() => r(Infinity), 6_000))]);
    s.destroy();
    await closing;
    await own.db.drop();
    expect(took).toBeLessThan(3_000);
  }, 120_000); // a second plane starts slowly on the embedded database
});
