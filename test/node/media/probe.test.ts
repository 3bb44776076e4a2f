import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import sharp from 'sharp';
import { buildNodeApp, type NodeApp } from '../../../src/node/app.js';
import { parseConfig } from '../../../src/node/config/validate.js';
import { SourceProbe } from '../../../src/node/media/probe/probe.service.js';
import { ffmpegPath, mediaToolEnv } from '../../../src/common/media-tools.js';
import { call, freePort, tempDir } from '../helpers/node-process.js';

/**
 * POST /api/v1/probe (document 4 §12) on a node in this process, against real sources served by
 * a local HTTP server: MPEG-TS made by ffmpeg from lavfi's testsrc (H.264 320x180 at 15 fps with
 * AAC audio), a password-protected copy, an audio-only one, a source that never answers, a
 * redirect to another host. The node's bound is 2 s here (10 s in service).
 */
const WRITE = 'probe-write-token-0123456789';
const READ = 'probe-read-token-0123456789';
const SECRET = 'pw-CANARY-probe';
const BOUND_MS = 2000;

class Lines extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

let dir: string;
let node: NodeApp;
let base: string;
let source: Server;
let other: Server;
let port: number;
let otherPort: number;
const otherHits: string[] = [];
const hung: ServerResponse[] = [];
const logs = new Lines();

const make = (out: string, inputs: string[], codecs: string[]) =>
  promisify(execFile)(
    ffmpegPath(),
    ['-hide_banner', '-loglevel', 'error', ...inputs, ...codecs, '-f', 'mpegts', '-y', out],
    { env: mediaToolEnv(ffmpegPath()), timeout: 60_000 },
  );

beforeAll(async () => {
  dir = await tempDir('argus-probe-');
  await make(
    join(dir, 'cam.ts'),
    ['-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=15:duration=3', '-f', 'lavfi', '-i', 'sine=duration=3'],
    ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '15', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
  );
  await make(join(dir, 'audio.ts'), ['-f', 'lavfi', '-i', 'sine=duration=2'], ['-c:a', 'aac']);
  const cam = await readFile(join(dir, 'cam.ts'));
  const audio = await readFile(join(dir, 'audio.ts'));
  [port, otherPort] = [await freePort(), await freePort()];
  const basic = `Basic ${Buffer.from(`viewer:${SECRET}`).toString('base64')}`;
  source = createServer((req, res) => {
    const ts = (body: Buffer) => res.writeHead(200, { 'content-type': 'video/mp2t' }).end(body);
    if (req.url === '/cam.ts') ts(cam);
    else if (req.url === '/audio.ts') ts(audio);
    else if (req.url === '/private.ts') {
      if (req.headers.authorization === basic) ts(cam);
      else res.writeHead(401, { 'www-authenticate': 'Basic realm="cam"' }).end();
    } else if (req.url === '/hang') hung.push(res);
    else if (req.url === '/text') res.writeHead(200, { 'content-type': 'text/plain' }).end('hello\n'.repeat(4096));
    else if (req.url === '/redirect.ts') res.writeHead(302, { location: `http://127.0.0.2:${otherPort}/cam.ts` }).end();
    else res.writeHead(404).end();
  });
  other = createServer((req, res) => {
    otherHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'video/mp2t' }).end(cam);
  });
  await new Promise<void>((r) => source.listen(port, '127.0.0.1', r));
  await new Promise<void>((r) => other.listen(otherPort, '127.0.0.2', r));

  const nodePort = await freePort();
  await mkdir(join(dir, 'data'), { recursive: true });
  const text =
    `http 127.0.0.1:${nodePort};\ndata_dir ${dir}/data;\nlog_level info;\n` +
    `auth { api_write_token ${WRITE}; api_read_token ${READ}; }\n`;
  const configPath = join(dir, 'argus-node.conf');
  await writeFile(configPath, text);
  node = await buildNodeApp({
    configPath,
    configText: text,
    config: parseConfig(text, dir).config,
    logger: pino({ level: 'info' }, logs),
    probeTimeoutMs: BOUND_MS,
  });
  [base] = await node.listen();
});
afterAll(async () => {
  for (const r of hung) r.destroy();
  source?.closeAllConnections();
  source?.close();
  other?.close();
  await node?.stop();
  await rm(dir, { recursive: true, force: true });
});

const probe = async (url: string, token = WRITE) => call(base, 'POST', '/api/v1/probe', { token, body: { url } });
const failure = (error: string | RegExp) => ({ ok: false, video: null, audio: null, error });

describe('POST /api/v1/probe', () => {
  it('reads the codec, size and frame rate of a real H.264 source, and its audio', async () => {
    const started = Date.now();
    const r = await probe(`http://127.0.0.1:${port}/cam.ts`);
    expect([r.status, r.json]).toEqual([
      200,
      { ok: true, video: { codec: 'h264', width: 320, height: 180, fps: 15 }, audio: { codec: 'aac' }, error: null },
    ]);
    expect(Date.now() - started).toBeLessThan(BOUND_MS);
  });

  it('is a write-tier route: the read token is refused (403), no token 401', async () => {
    const read = await probe(`http://127.0.0.1:${port}/cam.ts`, READ);
    expect([read.status, read.json]).toEqual([403, { error: 'forbidden', reason: 'read_token_cannot_write' }]);
    const none = await call(base, 'POST', '/api/v1/probe', { body: { url: `http://127.0.0.1:${port}/cam.ts` } });
    expect(none.status).toBe(401);
  });

  it('a body without a url, or with another field, is a 400', async () => {
    expect((await call(base, 'POST', '/api/v1/probe', { token: WRITE, body: {} })).status).toBe(400);
    const extra = await call(base, 'POST', '/api/v1/probe', { token: WRITE, body: { url: 'testsrc://x', y: 1 } });
    expect(extra.status).toBe(400);
  });

  it("a refused login is said in words, and the URL's password is in neither the reply nor the log", async () => {
    const wrong = await probe(`http://viewer:${SECRET}-no@127.0.0.1:${port}/private.ts`);
    expect(wrong.json).toEqual(failure('the source refused the login: check the user name and password'));
    const right = await probe(`http://viewer:${SECRET}@127.0.0.1:${port}/private.ts`);
    expect(right.json).toMatchObject({ ok: true, video: { codec: 'h264' } });
    const rtsp = await probe(`rtsp://viewer:${SECRET}@127.0.0.1:${await freePort()}/live`);
    expect(rtsp.json).toEqual(failure('nothing answers at this address and port (connection refused)'));
    expect(`${wrong.text}${right.text}${rtsp.text}`).not.toContain(SECRET);
    expect(logs.text).toContain('source probe failed');
    expect(logs.text).not.toContain(SECRET);
  });

  it('an unreachable port, a missing path, an audio-only source and text are told apart', async () => {
    const closed = await probe(`http://127.0.0.1:${await freePort()}/cam.ts`);
    expect(closed.json).toEqual(failure('nothing answers at this address and port (connection refused)'));
    const missing = await probe(`http://127.0.0.1:${port}/nothing.ts`);
    expect(missing.json).toEqual(failure('the source has nothing at this path (404 Not Found)'));
    expect((await probe(`http://127.0.0.1:${port}/audio.ts`)).json).toEqual(
      failure('the source has no video, only audio'),
    );
    expect((await probe(`http://127.0.0.1:${port}/text`)).json).toEqual(
      failure('the source answered, but not with a video stream the node can read'),
    );
  });

  it('a source that never answers ends at the bound, its ffmpeg killed', async () => {
    const started = Date.now();
    const r = await probe(`http://127.0.0.1:${port}/hang`);
    const took = Date.now() - started;
    expect(r.json).toEqual(failure('the source sent no video within 2 s'));
    expect(took).toBeGreaterThanOrEqual(BOUND_MS - 50);
    expect(took).toBeLessThan(BOUND_MS + 3000);
  });

  it('reaches nothing a stream could not: another host by redirect, an ambiguous URL, another scheme', async () => {
    otherHits.length = 0;
    expect((await probe(`http://127.0.0.1:${port}/redirect.ts`)).json).toEqual(
      failure('the source sent the node to another host, which the node does not follow'),
    );
    expect((await probe(`http://127.0.0.1\\@127.0.0.2:${otherPort}/cam.ts`)).json).toEqual(
      failure('the source URL holds a backslash, which URL parsers read differently'),
    );
    for (const url of [`ftp://127.0.0.2:${otherPort}/cam.ts`, `concat:http://127.0.0.2:${otherPort}/cam.ts`]) {
      expect((await probe(url)).json, url).toEqual(
        failure('the source URL must be an rtsp://, rtmp://, http(s)://, file:// or testsrc:// URL'),
      );
    }
    expect(otherHits).toEqual([]);
  });

  it("a node's own sources: a file, and testsrc (generated, so known without opening anything)", async () => {
    expect((await probe(pathToFileURL(join(dir, 'cam.ts')).href)).json).toMatchObject({
      ok: true,
      video: { codec: 'h264', width: 320, height: 180, fps: 15 },
    });
    expect((await probe(pathToFileURL(join(dir, 'none.ts')).href)).json).toEqual(
      failure('there is no such file on the node'),
    );
    expect((await probe('testsrc://t?size=640x360&rate=12')).json).toEqual({
      ok: true,
      video: { codec: 'h264', width: 640, height: 360, fps: 12 },
      audio: null,
      error: null,
    });
  });
});

describe('POST /api/v1/probe/snapshot (issue 22: a snapshot before saving)', () => {
  const snap = (url: string, token = WRITE) => call(base, 'POST', '/api/v1/probe/snapshot', { token, body: { url } });
  const picture = async (r: { json: unknown }) => {
    const body = r.json as { ok: boolean; image: string; error: null };
    expect(body.ok).toBe(true);
    return sharp(Buffer.from(body.image, 'base64')).metadata();
  };

  it('one frame of a real source as a JPEG; a large picture at most 640 pixels wide', async () => {
    const cam = await picture(await snap(`http://viewer:${SECRET}@127.0.0.1:${port}/private.ts`));
    expect([cam.format, cam.width, cam.height]).toEqual(['jpeg', 320, 180]);
    const big = await picture(await snap('testsrc://t?size=1280x720&rate=10'));
    expect([big.format, big.width, big.height]).toEqual(['jpeg', 640, 360]);
    expect(logs.text).not.toContain(SECRET);
  });

  it("a source that gives no picture says why as the probe does; the URL's password stays out", async () => {
    const none = { ok: false, image: null };
    expect((await snap(`http://127.0.0.1:${port}/nothing.ts`)).json).toEqual({
      ...none,
      error: 'the source has nothing at this path (404 Not Found)',
    });
    expect((await snap(`http://127.0.0.1:${port}/audio.ts`)).json).toEqual({
      ...none,
      error: 'the source has no video, only audio',
    });
    const wrong = await snap(`http://viewer:${SECRET}-no@127.0.0.1:${port}/private.ts`);
    expect(wrong.json).toEqual({ ...none, error: 'the source refused the login: check the user name and password' });
    expect(wrong.text).not.toContain(SECRET);
    expect((await snap('ftp://127.0.0.1/x')).json).toEqual({
      ...none,
      error: 'the source URL must be an rtsp://, rtmp://, http(s)://, file:// or testsrc:// URL',
    });
  });

  it('is a write-tier route as the probe', async () => {
    expect((await snap(`http://127.0.0.1:${port}/cam.ts`, READ)).status).toBe(403);
  });
});

describe('SourceProbe', () => {
  it('runs at most maxRunning probes at once; another is answered at once, in words', async () => {
    const p = new SourceProbe({ ffmpeg: ffmpegPath(), log: pino({ level: 'silent' }), timeoutMs: 1500, maxRunning: 1 });
    const first = p.probe(`http://127.0.0.1:${port}/hang`);
    const started = Date.now();
    const second = await p.probe(`http://127.0.0.1:${port}/cam.ts`);
    expect(Date.now() - started).toBeLessThan(500);
    expect(second).toEqual(failure('the node is testing other sources right now: try again in a few seconds'));
    expect((await first).error).toBe('the source sent no video within 2 s');
    expect((await p.probe(`http://127.0.0.1:${port}/cam.ts`)).ok).toBe(true);
  });
});
