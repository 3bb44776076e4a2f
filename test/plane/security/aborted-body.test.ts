import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startPlane, type TestPlane } from '../harness.js';
import { isConnectionError } from '../../../src/plane/db/health.js';

// Finding 1 of issue 10: a client that aborts its request body must not make the plane
// believe its database is down (only errors of the database driver may do that).
let t: TestPlane;
let port = 0;
const downs: unknown[] = [];
beforeAll(async () => {
  t = await startPlane();
  await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.plane.app.server.address() as AddressInfo).port;
  // Every call that would mark the database down is recorded (and still made).
  const health = t.plane.services.health;
  const markDown = health.markDown.bind(health);
  health.markDown = (reason: unknown) => {
    downs.push(reason);
    markDown(reason);
  };
});
afterAll(async () => {
  await t?.close();
});

function abortedLogin(): Promise<void> {
  return new Promise((resolve) => {
    const s: Socket = connect(port, '127.0.0.1', () => {
      s.write(
        'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"lo',
      );
      // Let the server start reading the body, then reset the connection.
      setTimeout(() => {
        s.resetAndDestroy();
        resolve();
      }, 20);
    });
    s.on('error', () => resolve());
  });
}

describe('a request body aborted by the client', () => {
  it('never marks the database down, and database routes keep answering', async () => {
    for (let round = 0; round < 5; round++) await Promise.all(Array.from({ length: 20 }, abortedLogin));
    await new Promise((r) => setTimeout(r, 100));
    expect(downs).toEqual([]);
    expect(t.plane.services.health.isUp).toBe(true);
    const r = await t.plane.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { login: 'nobody', password: 'x-pass-word' },
    });
    expect(r.statusCode).toBe(401);
  });

  it('isConnectionError refuses socket errors that did not come from the database driver', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    expect(isConnectionError(aborted)).toBe(false);
    // fetch to an unreachable node: "fetch failed" with an ECONNREFUSED cause
    expect(
      isConnectionError(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
        }),
      ),
    ).toBe(false);
    expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(false);
  });
});
