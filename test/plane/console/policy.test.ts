import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { ManualClock, startPlane, type TestPlane } from '../harness.js';
import { login, type Client } from '../client.js';
import { unique } from '../inventory.helpers.js';
import { contentPolicy } from '../../../src/plane/console/console.policy.js';
import { consoleFixture } from './console.fixture.js';

// Issue 25, item 13: the console's responses say `Referrer-Policy: no-referrer`, and its content
// policy lets media and XHR reach the plane and the registered nodes' origins only (it allowed
// any http: and https: origin).
const directive = (csp: string, name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `));

describe('contentPolicy', () => {
  it('names the nodes in media-src and connect-src (also as ws/wss for live.ws), and nothing else changes', () => {
    const csp = contentPolicy(['http://10.0.0.5:8081', 'https://node.example']);
    expect(directive(csp, 'connect-src')).toBe(
      "connect-src 'self' http://10.0.0.5:8081 ws://10.0.0.5:8081 https://node.example wss://node.example",
    );
    expect(directive(csp, 'media-src')).toBe("media-src 'self' blob: http://10.0.0.5:8081 https://node.example");
    expect(directive(csp, 'script-src')).toBe("script-src 'self'");
    expect(csp).not.toMatch(/ https?:( |;|$)/);
  });

  it("leaves out an origin that would change the policy (a host may hold ; , ' under the URL standard)", () => {
    const csp = contentPolicy([
      'http://a;script-src*',
      'http://b,c',
      "http://x'unsafe-eval'",
      'http://[::1]:8081',
      'javascript:alert(1)',
      'http://ok:1',
    ]);
    expect(directive(csp, 'connect-src')).toBe("connect-src 'self' http://ok:1 ws://ok:1");
    expect(csp.split('; ')).toHaveLength(11);
  });
});

describe("the console's headers", () => {
  const fixture = consoleFixture();
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
  let t: TestPlane;
  let root: Client;
  beforeAll(async () => {
    t = await startPlane({ consoleRoot: fixture.root, clock });
    root = await login(t.plane.app);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    rmSync(fixture.root, { recursive: true, force: true });
  });

  const page = async (url = '/') => {
    const r = await t.plane.app.inject({ method: 'GET', url });
    expect(r.statusCode, url).toBe(200);
    return r.headers;
  };
  const addNode = async (url: string) => {
    const r = await root.post('/api/v1/nodes', { name: unique('n'), url, api_token: 'node-write-token-123456' });
    expect(r.status, r.text).toBe(201);
    return r.body.id as string;
  };

  it('no referrer, on pages and assets', async () => {
    expect((await page('/'))['referrer-policy']).toBe('no-referrer');
    expect((await page('/events/x'))['referrer-policy']).toBe('no-referrer');
    expect((await page(`/assets/${fixture.asset}`))['referrer-policy']).toBe('no-referrer');
  });

  it('media and XHR reach the plane and the registered nodes, no other origin', async () => {
    const none = String((await page())['content-security-policy']);
    expect(directive(none, 'connect-src')).toBe("connect-src 'self'");
    expect(directive(none, 'media-src')).toBe("media-src 'self' blob:");

    const a = await addNode('http://10.20.30.40:8081');
    const b = await addNode('https://node-b.example:8443/base');
    await addNode('http://10.20.30.40:8081/other'); // the same origin once
    clock.advance(5_000);
    const two = String((await page('/live'))['content-security-policy']);
    expect(directive(two, 'connect-src')).toBe(
      "connect-src 'self' http://10.20.30.40:8081 ws://10.20.30.40:8081 https://node-b.example:8443 wss://node-b.example:8443",
    );
    expect(directive(two, 'media-src')).toBe(
      "media-src 'self' blob: http://10.20.30.40:8081 https://node-b.example:8443",
    );

    // A disabled node is still registered (its cameras may come back); a deleted one is gone.
    expect((await root.patch(`/api/v1/nodes/${a}`, { enabled: false })).status).toBe(200);
    expect((await root.del(`/api/v1/nodes/${b}`)).status).toBe(200);
    clock.advance(5_000);
    const after = String((await page('/feed'))['content-security-policy']);
    expect(directive(after, 'connect-src')).toBe("connect-src 'self' http://10.20.30.40:8081 ws://10.20.30.40:8081");
  });
});
