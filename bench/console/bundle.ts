/**
 * The console's JavaScript over the wire (issue 22): what the login page loads, and what the live
 * grid loads up to its first frame (its chunks and the player's hls.js), each summed from the
 * bytes the real plane executable sends for the build in dist/console when asked with
 * `Accept-Encoding: br`, then `gzip`, then `identity` (the uncompressed baseline). Which files a
 * page loads is read from the build's manifest (bundle-manifest.ts). Targets: login at most 90 kB,
 * live at most 300 kB (1 kB = 1,000 bytes); printed beside, not asserted.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/console/bundle.js
 */
import { request } from 'node:http';
import { resolve } from 'node:path';
import { benchDatabase, startPlaneProcess } from '../plane/harness.js';
import { MEASURED_PAGES, pageChunks, readManifest, scriptsOf } from './bundle-manifest.js';

const TARGETS_KB = { login: 90, live: 300 } as const;
const ENCODINGS = ['br', 'gzip', 'identity'] as const;
type Encoding = (typeof ENCODINGS)[number];

/** The body bytes of one GET as they came over the socket (no decoding), and the encoding the plane chose. */
function wireBytes(base: string, path: string, accept: Encoding): Promise<{ bytes: number; encoding: string }> {
  return new Promise((done, fail) => {
    const req = request(`${base}${path}`, { headers: { 'accept-encoding': accept } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
      });
      res.on('end', () =>
        res.statusCode === 200
          ? done({ bytes, encoding: res.headers['content-encoding'] ?? 'identity' })
          : fail(new Error(`GET ${path}: ${res.statusCode}`)),
      );
    });
    req.on('error', fail);
    req.end();
  });
}

const root = resolve('dist/console');
const manifest = readManifest(root);
const db = await benchDatabase();
const plane = await startPlaneProcess(db.url, '[sweeper]\nenabled = false\n');
try {
  const result: Record<string, Record<Encoding, number> & { files: string[]; other_encoding: string[] }> = {};
  for (const [name, spec] of Object.entries(MEASURED_PAGES)) {
    const files = scriptsOf(manifest, pageChunks(manifest, spec.page, spec.alsoLoads));
    const sums = { br: 0, gzip: 0, identity: 0 };
    const other: string[] = [];
    for (const file of files)
      for (const enc of ENCODINGS) {
        const got = await wireBytes(plane.base, `/${file}`, enc);
        sums[enc] += got.bytes;
        if (got.encoding !== enc) other.push(`${file} asked ${enc}, sent ${got.encoding}`);
      }
    result[name] = { ...sums, files, other_encoding: other };
  }
  const kb = (n: number) => (n / 1000).toFixed(1);
  console.log('| page | files | br kB | gzip kB | uncompressed kB | target kB |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, r] of Object.entries(result))
    console.log(
      `| ${name} JavaScript | ${r.files.length} | ${kb(r.br)} | ${kb(r.gzip)} | ${kb(r.identity)} | ${TARGETS_KB[name as keyof typeof TARGETS_KB]} |`,
    );
  for (const r of Object.values(result)) for (const o of r.other_encoding) console.log(`note: ${o}`);
  console.log(JSON.stringify({ targets_kb: TARGETS_KB, pages: result }));
} finally {
  await plane.stop();
  await db.drop();
}
