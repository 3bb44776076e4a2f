import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import yauzl from 'yauzl';
import { callApi, launchChromium, startFleet, watchedPage, type Fleet } from './browser.js';

// Issue 23, verifiable exports, against what `npm start` runs: the demo camera records on its
// real node; the plane's export route (manifest=1) brings a zip through the plane; the built
// `argus-plane verify-export` says it is valid with the key the plane serves (and altered under
// another byte); and the MP4 inside plays in Chromium.

const PLANE_MAIN = resolve('dist/src/plane/main.js');
let fleet: Fleet, browser: Browser, token: string, dir: string;
let cameraId = '';
let server: Server | null = null;

const api = <T>(method: string, path: string, body?: unknown) => callApi<T>(fleet.base, token, method, path, body);

/** The export of the range, or null while the node has nothing recorded in it yet. */
async function exportZip(from: string, secs: number): Promise<{ bytes: Buffer; disposition: string } | null> {
  const r = await fetch(`${fleet.base}/api/v1/cameras/${cameraId}/export?from=${from}&duration=${secs}&manifest=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (r.status === 404) return null;
  if (!r.ok) throw new Error(`export: ${r.status} ${await r.text()}`);
  return { bytes: Buffer.from(await r.arrayBuffer()), disposition: r.headers.get('content-disposition') ?? '' };
}

function entries(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((res, rej) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err) return rej(err);
      const out = new Map<string, Buffer>();
      zip.on('entry', (e: yauzl.Entry) => {
        zip.openReadStream(e, async (err2, s) => {
          if (err2) return rej(err2);
          const chunks: Buffer[] = [];
          for await (const c of s) chunks.push(c as Buffer);
          out.set(e.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
      zip.on('end', () => res(out));
      zip.readEntry();
    });
  });
}

async function verifyCli(file: string, key: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [PLANE_MAIN, 'verify-export', file, '--key', key]);
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    return { code: e.code ?? -1, out: e.stdout ?? '' };
  }
}

let zip: { bytes: Buffer; disposition: string };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-export-browser-'));
  fleet = await startFleet();
  browser = await launchChromium();
  token = await fleet.session();
  cameraId = (await api<{ rows: Array<{ id: string }> }>('GET', '/api/v1/cameras')).rows[0]!.id;
  // Ten seconds that ended a little while ago: asked again until the node has recorded them.
  const deadline = Date.now() + 120_000;
  for (;;) {
    const from = new Date(Math.floor(Date.now() / 1000) * 1000 - 20_000).toISOString();
    const got = await exportZip(from, 10);
    if (got) {
      zip = got;
      break;
    }
    if (Date.now() > deadline) throw new Error('the demo camera recorded nothing to export in 120 s');
    await new Promise((r) => setTimeout(r, 2000));
  }
}, 240_000);

afterAll(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await browser?.close();
  await fleet?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('verifiable exports', () => {
  it('a zip through the plane from the real node, named for the camera, valid under the served key', async () => {
    expect(zip.disposition).toMatch(/^attachment; filename="[^"]+_\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d_10s\.zip"/);
    const files = await entries(zip.bytes);
    expect([...files.keys()]).toEqual(['export.mp4', 'manifest.json', 'manifest.sig']);
    expect(JSON.parse(files.get('manifest.json')!.toString('utf8')).camera_id).toBe(cameraId);
    const key = await api<{ alg: string; key: string }>('GET', '/api/v1/export-key');
    await writeFile(join(dir, 'key.pem'), key.key);
    await writeFile(join(dir, 'export.zip'), zip.bytes);
    const valid = await verifyCli(join(dir, 'export.zip'), join(dir, 'key.pem'));
    expect(valid, valid.out).toMatchObject({ code: 0 });
    expect(valid.out).toMatch(/: valid: /);
    // One byte of the video changed: altered, exit 1.
    const altered = Buffer.from(zip.bytes);
    const at = zip.bytes.indexOf(files.get('export.mp4')!.subarray(4096, 4160)) + 10;
    altered[at] = altered[at]! ^ 0x55;
    await writeFile(join(dir, 'altered.zip'), altered);
    const bad = await verifyCli(join(dir, 'altered.zip'), join(dir, 'key.pem'));
    expect(bad, bad.out).toMatchObject({ code: 1 });
  });

  it('the MP4 inside plays in Chromium', async () => {
    const mp4 = (await entries(zip.bytes)).get('export.mp4')!;
    server = createServer((req, res) => {
      if (req.url === '/export.mp4') {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(mp4.length) });
        res.end(mp4);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>export</title><video src="/export.mp4" muted autoplay playsinline></video>');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const context = await browser.newContext();
    const { page, errors } = await watchedPage(context);
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    // Evaluated in the page, as text: this file is compiled without the DOM's types.
    const state = () =>
      page.evaluate<{ time: number; error: number | null; duration: number }>(
        "(() => { const v = document.querySelector('video'); return { time: v.currentTime, error: v.error ? v.error.code : null, duration: v.duration }; })()",
      );
    await expect.poll(async () => (await state()).time, { timeout: 30_000 }).toBeGreaterThan(0);
    const s = await state();
    expect(s.error).toBeNull();
    // The first range with anything recorded may hold only the recording's first seconds.
    expect(s.duration).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await context.close();
    expect((await readFile(join(dir, 'export.zip'))).length).toBe(zip.bytes.length);
  });
});
