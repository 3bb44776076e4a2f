import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { startPlane, type TestPlane } from '../harness.js';

// Issue 22: the build writes name.br and name.gz beside each text file (web/vite.config.ts); the
// plane answers the copy the request accepts. The bodies differ per encoding (a copy that is not
// the file's compression would be caught), and the requests go over a real socket, where
// Content-Length and HEAD are what a browser sees.
const JS = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `word ${i}`))};\n`;
const HTML = `<!doctype html><html><head><title>Argus</title></head><body>${'<div id="root"></div>'.repeat(20)}</body></html>`;
const CSS = `.a { color: red }\n`.repeat(50);

const root = mkdtempSync(join(tmpdir(), 'argus-console-br-'));
mkdirSync(join(root, 'assets'));
function withCopies(path: string, text: string) {
  writeFileSync(path, text);
  writeFileSync(`${path}.br`, brotliCompressSync(text));
  writeFileSync(`${path}.gz`, gzipSync(text));
}
withCopies(join(root, 'index.html'), HTML);
withCopies(join(root, 'assets', 'index-Ab12cd.js'), JS);
// The build skips a copy that would not be smaller: only the file, or only its gzip copy.
writeFileSync(join(root, 'assets', 'tiny-Zz9.css'), CSS);
writeFileSync(join(root, 'assets', 'half-Yy8.css'), CSS);
writeFileSync(join(root, 'assets', 'half-Yy8.css.gz'), gzipSync(CSS));

let t: TestPlane;
let port = 0;
beforeAll(async () => {
  t = await startPlane({ consoleRoot: root });
  await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.plane.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await t?.close();
  rmSync(root, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}
function get(path: string, acceptEncoding?: string, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
const decode = (a: Answer) =>
  (a.headers['content-encoding'] === 'br'
    ? brotliDecompressSync(a.body)
    : a.headers['content-encoding'] === 'gzip'
      ? gunzipSync(a.body)
      : a.body
  ).toString();

describe('the console answers the compressed copy the request accepts', () => {
  it.each([
    ['gzip, deflate, br', 'br'],
    ['br', 'br'],
    ['gzip;q=0.5, br;q=1', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('Accept-Encoding %j: %s', async (accept, encoding) => {
    const r = await get('/assets/index-Ab12cd.js', accept);
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe(encoding);
    expect(decode(r)).toBe(JS);
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(r.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(r.headers.vary).toMatch(/accept-encoding/i);
    expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // The console's own headers stay on every form.
    expect(r.headers['content-security-policy']).toContain("script-src 'self'");
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  it('the brotli copy is what goes over the wire, smaller than the file', async () => {
    const br = await get('/assets/index-Ab12cd.js', 'br');
    const plain = await get('/assets/index-Ab12cd.js', 'identity');
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    expect(plain.body.toString()).toBe(JS);
  });

  it('a page: index.html compressed, HTML type, not cached without asking', async () => {
    for (const [accept, encoding] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['identity', undefined],
    ] as const) {
      const r = await get('/live', accept);
      expect([r.status, r.headers['content-encoding']]).toEqual([200, encoding]);
      expect(decode(r)).toBe(HTML);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      expect(r.headers['cache-control']).toBe('no-cache');
      expect(r.headers.vary).toMatch(/accept-encoding/i);
      expect(Number(r.headers['content-length'])).toBe(r.body.length);
    }
  });

  it('HEAD: the headers of the GET of the same encoding, no body', async () => {
    for (const accept of ['br', 'gzip', 'identity']) {
      const g = await get('/assets/index-Ab12cd.js', accept);
      const h = await get('/assets/index-Ab12cd.js', accept, 'HEAD');
      expect(h.status).toBe(200);
      expect(h.body.length).toBe(0);
      expect(h.headers['content-encoding']).toBe(accept === 'identity' ? undefined : accept);
      expect(g.headers['content-encoding']).toBe(h.headers['content-encoding']);
      expect(h.headers['content-length']).toBe(String(g.body.length));
      expect(h.headers.vary).toMatch(/accept-encoding/i);
    }
  });

  it('a missing copy: the next one accepted, else the file itself', async () => {
    const none = await get('/assets/tiny-Zz9.css', 'br, gzip');
    expect([none.status, none.headers['content-encoding'], none.body.toString()]).toEqual([200, undefined, CSS]);
    expect(none.headers['content-type']).toMatch(/^text\/css/);
    expect(Number(none.headers['content-length'])).toBe(CSS.length);
    const half = await get('/assets/half-Yy8.css', 'br, gzip');
    expect([half.status, half.headers['content-encoding'], decode(half)]).toEqual([200, 'gzip', CSS]);
    expect(half.headers['content-type']).toMatch(/^text\/css/);
    const onlyBr = await get('/assets/half-Yy8.css', 'br');
    expect([onlyBr.headers['content-encoding'], onlyBr.body.toString()]).toEqual([undefined, CSS]);
  });

  it('the copies are no addresses of their own', async () => {
    for (const path of ['/assets/index-Ab12cd.js.br', '/assets/index-Ab12cd.js.gz', '/assets/half-Yy8.css.gz']) {
      const r = await get(path, 'br, gzip');
      expect([path, r.status, r.body.toString()]).toEqual([path, 404, '{"error":"not_found"}']);
    }
  });

  it('a revalidation of a copy answers 304 for that copy', async () => {
    const first = await get('/assets/index-Ab12cd.js', 'br');
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/assets/index-Ab12cd.js',
          headers: { 'accept-encoding': 'br', 'if-none-match': etag },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(again).toBe(304);
    // The gzip copy is another representation: another validator.
    expect((await get('/assets/index-Ab12cd.js', 'gzip')).headers.etag).not.toBe(etag);
  });
});
