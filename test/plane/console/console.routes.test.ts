import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONSOLE_PATHS } from '../../../src/common/console-pages.js';
import { startPlane, type TestPlane } from '../harness.js';

// The console as `npm run build` writes it (the test command builds first).
const ROOT = resolve('dist/console');

describe('the console at / (document 4 §12)', () => {
  let t: TestPlane;
  beforeAll(async () => {
    t = await startPlane({ consoleRoot: ROOT });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is built', () => {
    expect(existsSync(resolve(ROOT, 'index.html'))).toBe(true);
  });

  // Every address of the console's table of pages (src/common/console-pages.ts), a parameter filled in.
  it.each(CONSOLE_PATHS.map((p) => p.replace(':id', '0190c0de-0000-7000-8000-000000000000')))(
    '%s answers the application, with its content policy',
    async (url) => {
      const r = await t.plane.app.inject({ method: 'GET', url });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      expect(r.body).toMatch(/<div id="root"><\/div>/);
      expect(r.headers['cache-control']).toBe('no-cache');
      expect(r.headers['content-security-policy']).toContain("script-src 'self'");
      expect(r.headers['content-security-policy']).toContain("media-src 'self' blob:");
    },
  );

  it('serves the hashed bundle for a year; anything else stays a 404 of the API', async () => {
    const js = readdirSync(resolve(ROOT, 'assets')).find((f) => f.startsWith('index-') && f.endsWith('.js'))!;
    const r = await t.plane.app.inject({ method: 'GET', url: `/assets/${js}` });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/javascript/);
    expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await t.plane.app.inject({ method: 'GET', url: '/assets/../index.html' })).statusCode).not.toBe(200);
    // Not a page of the table: the API's 404, not the application.
    for (const url of ['/nothing-here', '/admin', '/admin/nothing', '/events']) {
      const missing = await t.plane.app.inject({ method: 'GET', url });
      expect([url, missing.statusCode, missing.json()]).toEqual([url, 404, { error: 'not_found' }]);
    }
    expect((await t.plane.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).body).not.toContain('"/feed"');
  });
});
