import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { rmSync } from 'node:fs';
import { startPlane, type TestPlane } from '../harness.js';
import { consoleFixture } from './console.fixture.js';

// Issue 25, item 10: `/assets/` and `/assets/%2e%2e/...` answered 500 and wrote an error line to
// the log; a missing asset answered 405. Every path under /assets/ that is not an asset is 404.
// The paths go over a real socket, byte for byte (inject would resolve `%2e%2e` as a URL parser does).
const fixture = consoleFixture();
let t: TestPlane;
let base: { host: string; port: number };
beforeAll(async () => {
  t = await startPlane({ consoleRoot: fixture.root });
  await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  const a = t.plane.app.server.address() as { port: number };
  base = { host: '127.0.0.1', port: a.port };
});
afterAll(async () => {
  await t?.close();
  rmSync(fixture.root, { recursive: true, force: true });
});

function get(
  path: string,
  method = 'GET',
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ ...base, path, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const errorLines = () => t.logs.text.split('\n').filter((l) => /"level":(50|60)/.test(l));

describe('/assets/ serves the bundle and nothing else', () => {
  it('an asset: 200, cached for a year, with the console headers', async () => {
    const r = await get(`/assets/${fixture.asset}`);
    expect([r.status, r.body]).toEqual([200, 'console.log(1)']);
    expect(r.headers['content-type']).toMatch(/javascript/);
    expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(r.headers['content-security-policy']).toContain("script-src 'self'");
    expect((await get(`/assets/${fixture.asset}`, 'HEAD')).status).toBe(200);
  });

  it.each([
    '/assets/',
    '/assets',
    '/assets//',
    '/assets/%2e%2e/index.html',
    '/assets/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
    '/assets/%2E%2E/',
    '/assets/..%2findex.html',
    '/assets/..%2Fsecret.txt',
    '/assets/%2e%2e%2fsecret.txt',
    '/assets/..%5csecret.txt',
    '/assets/%5c..%5cindex.html',
    '/assets/sub',
    '/assets/sub/',
    '/assets/.hidden',
    '/assets/nope.js',
    '/assets/index-AbC_12-x.js/',
    `/assets/sub/${fixture.asset}`,
    '/assets/%252e%252e/index.html',
    '/assets/x'.padEnd(300, 'x'),
  ])('%s: 404 not_found, no error logged', async (path) => {
    const before = errorLines().length;
    const r = await get(path);
    expect([r.status, r.body], path).toEqual([404, '{"error":"not_found"}']);
    expect(errorLines().slice(before)).toEqual([]);
  });

  it('HEAD of a missing asset is 404 too', async () => {
    expect((await get('/assets/', 'HEAD')).status).toBe(404);
    expect((await get('/assets/nope.js', 'HEAD')).status).toBe(404);
  });
});
