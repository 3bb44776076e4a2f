import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startPlane, type TestPlane } from '../harness.js';
import { consoleFixture } from './console.fixture.js';

// Issue 22, installable: the plane answers the web app manifest, the service worker and the icons
// that `npm run build` copies from web/public/ (and stamps, for sw.js), with their types, a cache
// policy that lets a new build be seen, and a content policy that allows them.

const fixture = consoleFixture();
mkdirSync(join(fixture.root, 'icons'));
const MANIFEST = JSON.stringify({ name: 'Argus', icons: [{ src: '/icons/icon-192.png' }] });
writeFileSync(join(fixture.root, 'manifest.webmanifest'), MANIFEST);
writeFileSync(join(fixture.root, 'manifest.webmanifest.gz'), gzipSync(MANIFEST));
writeFileSync(join(fixture.root, 'sw.js'), "const BUILD = 'b1';");
writeFileSync(join(fixture.root, 'icons', 'icon-192.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
writeFileSync(join(fixture.root, 'icons', 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');

let t: TestPlane;
beforeAll(async () => {
  t = await startPlane({ consoleRoot: fixture.root });
});
afterAll(async () => {
  await t?.close();
  rmSync(fixture.root, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}) => t.plane.app.inject({ method: 'GET', url, headers });

describe('the files that install the console', () => {
  it('/manifest.webmanifest: its media type, asked again on each use, allowed by manifest-src', async () => {
    const r = await get('/manifest.webmanifest');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/manifest\+json/);
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(JSON.parse(r.body)).toEqual(JSON.parse(MANIFEST));
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain("manifest-src 'self'");
    // Its precompressed copy, when the build wrote one.
    const gz = await get('/manifest.webmanifest', { 'accept-encoding': 'gzip' });
    expect([gz.headers['content-encoding'], gz.headers['vary']]).toEqual(['gzip', 'accept-encoding']);
  });

  it('/sw.js: JavaScript from the root (its scope is every page), never cached immutable, allowed by worker-src', async () => {
    const r = await get('/sw.js');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(r.body).toBe("const BUILD = 'b1';");
    expect(String(r.headers['content-security-policy'])).toMatch(/worker-src 'self'/);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  it('/icons/*: PNG and SVG with their types, cached a day (their names carry no hash)', async () => {
    const png = await get('/icons/icon-192.png');
    expect([png.statusCode, png.headers['content-type']]).toEqual([200, 'image/png']);
    expect(png.headers['cache-control']).toBe('public, max-age=86400');
    const svg = await get('/icons/icon.svg');
    expect([svg.statusCode, svg.headers['content-type']]).toEqual([200, 'image/svg+xml']);
  });

  it.each([
    '/icons/',
    '/icons/missing.png',
    '/icons/..%2fsecret.txt',
    '/icons/%2e%2e/index.html',
    '/icons/icon-192.png.gz',
    '/sw.js.gz',
    '/manifest.json',
    '/service-worker.js',
  ])('%s: the API 404', async (url) => {
    const r = await get(url);
    expect([r.statusCode, r.json()]).toEqual([404, { error: 'not_found' }]);
  });

  it('a console built without them answers 404, not a 500', async () => {
    const bare = consoleFixture();
    const p = await startPlane({ consoleRoot: bare.root });
    try {
      for (const url of ['/sw.js', '/manifest.webmanifest', '/icons/icon-192.png'])
        expect((await p.plane.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    } finally {
      await p.close();
      rmSync(bare.root, { recursive: true, force: true });
    }
  });
});

// What `npm run build` writes (the test command builds first): the real manifest, its icons, the stamped worker.
describe('the built console (dist/console)', () => {
  const ROOT = resolve('dist/console');

  it('a manifest a browser installs: name, standalone, start in scope, 192 and 512 px icons that exist', () => {
    const m = JSON.parse(readFileSync(join(ROOT, 'manifest.webmanifest'), 'utf8')) as {
      name: string;
      short_name: string;
      start_url: string;
      scope: string;
      display: string;
      icons: Array<{ src: string; sizes: string; type: string; purpose?: string }>;
    };
    expect(m.short_name).toBe('Argus');
    expect(m.display).toBe('standalone');
    expect(m.start_url.startsWith(m.scope)).toBe(true);
    for (const size of ['192x192', '512x512'])
      expect(m.icons.some((i) => i.sizes === size && i.type === 'image/png')).toBe(true);
    expect(m.icons.some((i) => i.purpose === 'maskable')).toBe(true);
    for (const icon of m.icons) expect(existsSync(join(ROOT, icon.src))).toBe(true);
    const html = readFileSync(join(ROOT, 'index.html'), 'utf8');
    expect(html).toContain('<link rel="manifest" href="/manifest.webmanifest"');
  });

  it('the worker carries its build, keeps the shell and leaves the API to the network', () => {
    const sw = readFileSync(join(ROOT, 'sw.js'), 'utf8');
    expect(sw).not.toContain('__ARGUS_BUILD__');
    expect(sw).toMatch(/const BUILD = '[0-9a-f]{16}'/);
    expect(sw).toContain("url.pathname.startsWith('/api/')) return");
  });
});
