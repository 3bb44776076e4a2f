import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import sharp from 'sharp';
import { startPlane, type TestPlane } from '../harness.js';
import { tenants, unique, randomId, type Tenants } from '../inventory.helpers.js';
import { login } from '../client.js';
import { ProbeNode } from './probe-node.js';
import { buildNodeApp, type NodeApp } from '../../../src/node/app.js';
import { parseConfig } from '../../../src/node/config/validate.js';
import { ffmpegPath, mediaToolEnv } from '../../../src/common/media-tools.js';
import { freePort, tempDir } from '../../node/helpers/node-process.js';

/** POST /api/v1/cameras/probe (document 4 §12): rights, the source guard, the node's failures, the answer passed on. */
let t: TestPlane;
let x: Tenants;
let fake: ProbeNode;
let nodeId: string;

const addNode = async (url: string, token: string): Promise<string> => {
  const r = await x.root.post('/api/v1/nodes', { name: unique('n'), url, api_token: token });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
};

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  fake = await ProbeNode.start();
  nodeId = await addNode(fake.url, fake.token);
});
afterAll(async () => {
  await fake?.close();
  await t?.close();
});

const SOURCE = 'rtsp://viewer:cam-CANARY7f3-pw@10.1.2.3:554/Streaming/Channels/101';

describe('POST /api/v1/cameras/probe', () => {
  it("an administrator and a superadmin get the node's answer; the node is asked once, with its write token and the URL", async () => {
    for (const who of [x.a.admin, x.root]) {
      fake.requests.length = 0;
      const r = await who.post('/api/v1/cameras/probe', { node_id: nodeId, url: SOURCE });
      expect([r.status, r.body]).toEqual([200, fake.reply]);
      expect(fake.requests).toEqual([
        { method: 'POST', path: '/api/v1/probe', authorization: `Bearer ${fake.token}`, body: { url: SOURCE } },
      ]);
    }
  });

  it("a source the node could not read is the node's 200 with ok false and its words", async () => {
    const answer = {
      ok: false,
      video: null,
      audio: null,
      error: 'the source refused the login: check the user name and password',
    };
    fake.reply = answer;
    try {
      const r = await x.a.admin.post('/api/v1/cameras/probe', { node_id: nodeId, url: SOURCE });
      expect([r.status, r.body]).toEqual([200, answer]);
    } finally {
      fake.reply = {
        ok: true,
        video: { codec: 'h264', width: 1920, height: 1080, fps: 25 },
        audio: { codec: 'aac' },
        error: null,
      };
    }
  });

  it('an operator is refused (403), anonymous 401; the node is not asked', async () => {
    fake.requests.length = 0;
    const op = await x.a.operator.post('/api/v1/cameras/probe', { node_id: nodeId, url: SOURCE });
    expect([op.status, op.body]).toEqual([403, { error: 'forbidden' }]);
    expect((await x.anon.post('/api/v1/cameras/probe', { node_id: nodeId, url: SOURCE })).status).toBe(401);
    expect(fake.requests).toEqual([]);
  });

  it('a node that is not one is 400 unknown_node, as on camera create; a body of another shape its field codes', async () => {
    for (const node_id of [randomId(), 'not-a-uuid']) {
      const r = await x.a.admin.post('/api/v1/cameras/probe', { node_id, url: SOURCE });
      expect([r.status, r.body], node_id).toEqual([400, { error: 'unknown_node' }]);
    }
    const noUrl = await x.a.admin.post('/api/v1/cameras/probe', { node_id: nodeId });
    expect([noUrl.status, noUrl.body]).toEqual([400, { error: 'bad_source_url' }]);
    const extra = await x.a.admin.post('/api/v1/cameras/probe', { node_id: nodeId, url: SOURCE, name: 'x' });
    expect(extra.status).toBe(400);
  });

  it('a link-local, metadata, file or ambiguous source is 400 bad_source_url (as camera create); the node is not asked', async () => {
    fake.requests.length = 0;
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'rtsp://metadata.google.internal/live',
      'http://[fe80::1]/cam.ts',
      'rtsp://10.0.0.1\\@169.254.169.254/live',
      'file:///etc/passwd',
      'ftp://10.1.2.3/cam',
    ]) {
      const probe = await x.a.admin.post('/api/v1/cameras/probe', { node_id: nodeId, url });
      expect([probe.status, probe.body], url).toEqual([400, { error: 'bad_source_url' }]);
      const create = await x.a.admin.post('/api/v1/cameras', { name: unique('c'), node_id: nodeId, main_source: url });
      expect([create.status, create.body], url).toEqual([400, { error: 'bad_source_url' }]);
    }
    expect(fake.requests).toEqual([]);
  });

  it('changes nothing, so records no audit entry', async () => {
    const newest = async () => (await x.root.get('/api/v1/audit?limit=1')).body.rows[0]?.id;
    const before = await newest();
    expect((await x.a.admin.post('/api/v1/cameras/probe', { node_id: nodeId, url: SOURCE })).status).toBe(200);
    expect(await newest()).toBe(before);
  });

  it('a node that refuses the connection is 502 node_unreachable; one refusing the token node_auth_failed; a reply of another shape node_bad_reply', async () => {
    const dead = await addNode(`http://127.0.0.1:${await freePort()}`, 'dead-node-token-0123456789');
    const r = await x.a.admin.post('/api/v1/cameras/probe', { node_id: dead, url: SOURCE });
    expect([r.status, r.body]).toEqual([502, { error: 'node_unreachable' }]);
    try {
      fake.mode = 'forbid';
      const auth = await x.a.admin.post('/api/v1/cameras/probe', { node_id: nodeId, url: SOURCE });
      expect([auth.status, auth.body]).toEqual([502, { error: 'node_auth_failed' }]);
      fake.mode = 'garbage';
      const bad = await x.a.admin.post('/api/v1/cameras/probe', { node_id: nodeId, url: SOURCE });
      expect([bad.status, bad.body]).toEqual([502, { error: 'node_bad_reply', node_status: 200 }]);
    } finally {
      fake.mode = 'up';
    }
  });

  it("a node that never answers is 502 node_unreachable once the node's 10 s and the margin (12 s) have passed", async () => {
    fake.mode = 'hang';
    try {
      const started = Date.now();
      const r = await x.a.admin.post('/api/v1/cameras/probe', { node_id: nodeId, url: SOURCE });
      const took = Date.now() - started;
      expect([r.status, r.body]).toEqual([502, { error: 'node_unreachable' }]);
      expect(took).toBeGreaterThanOrEqual(11_500);
      expect(took).toBeLessThan(20_000);
    } finally {
      fake.mode = 'up';
    }
  });

  it("the source's password is not in the plane's log", () => {
    expect(t.logs.text).not.toContain('cam-CANARY7f3-pw');
  });
});

describe('with [network] allow_private_targets', () => {
  let open: TestPlane;
  beforeAll(async () => {
    open = await startPlane({ config: { allowPrivateTargets: true } });
  });
  afterAll(async () => {
    await open?.close();
  });

  it('a link-local source reaches the node', async () => {
    const root = await login(open.plane.app);
    const id = (await root.post('/api/v1/nodes', { name: unique('n'), url: fake.url, api_token: fake.token })).body.id;
    fake.requests.length = 0;
    const r = await root.post('/api/v1/cameras/probe', { node_id: id, url: 'http://169.254.169.254/cam.ts' });
    expect([r.status, r.body]).toEqual([200, fake.reply]);
    expect(fake.requests.map((q) => q.body)).toEqual([{ url: 'http://169.254.169.254/cam.ts' }]);
  });
});

describe('end to end, with a real node and a real source', () => {
  const WRITE = 'probe-e2e-write-token-0123456789';
  let dir: string;
  let node: NodeApp;
  let source: Server;
  let sourceUrl: string;
  let realId: string;

  beforeAll(async () => {
    dir = await tempDir('argus-plane-probe-');
    await promisify(execFile)(
      ffmpegPath(),
      [
        ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=20:duration=2'],
        ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '20', '-pix_fmt', 'yuv420p', '-f', 'mpegts', '-y'],
        join(dir, 'cam.ts'),
      ],
      { env: mediaToolEnv(ffmpegPath()), timeout: 60_000 },
    );
    const clip = await readFile(join(dir, 'cam.ts'));
    source = createServer((_req, res) => res.writeHead(200, { 'content-type': 'video/mp2t' }).end(clip));
    const sourcePort = await freePort();
    await new Promise<void>((r) => source.listen(sourcePort, '127.0.0.1', r));
    sourceUrl = `http://127.0.0.1:${sourcePort}/cam.ts`;
    const port = await freePort();
    await mkdir(join(dir, 'data'), { recursive: true });
    const text = `http 127.0.0.1:${port};\ndata_dir ${dir}/data;\nlog_level silent;\nauth { api_write_token ${WRITE}; }\n`;
    const configPath = join(dir, 'argus-node.conf');
    await writeFile(configPath, text);
    node = await buildNodeApp({
      configPath,
      configText: text,
      config: parseConfig(text, dir).config,
      logger: pino({ level: 'silent' }),
    });
    const [url] = await node.listen();
    realId = await addNode(url!, WRITE);
  });
  afterAll(async () => {
    source?.close();
    await node?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers the source's codec, size and frame rate", async () => {
    const r = await x.a.admin.post('/api/v1/cameras/probe', { node_id: realId, url: sourceUrl });
    expect([r.status, r.body]).toEqual([
      200,
      { ok: true, video: { codec: 'h264', width: 320, height: 240, fps: 20 }, audio: null, error: null },
    ]);
    const closed = await x.a.admin.post('/api/v1/cameras/probe', {
      node_id: realId,
      url: `http://127.0.0.1:${await freePort()}/cam.ts`,
    });
    expect(closed.body).toEqual({
      ok: false,
      video: null,
      audio: null,
      error: 'nothing answers at this address and port (connection refused)',
    });
  });

  it('a snapshot before saving (issue 22): one frame as a JPEG, or the words why not; an operator is refused', async () => {
    const r = await x.a.admin.post('/api/v1/cameras/probe/snapshot', { node_id: realId, url: sourceUrl });
    expect(r.status, r.text).toBe(200);
    expect([r.body.ok, r.body.error]).toEqual([true, null]);
    const meta = await sharp(Buffer.from(r.body.image, 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 240]);
    const closed = await x.a.admin.post('/api/v1/cameras/probe/snapshot', {
      node_id: realId,
      url: `http://127.0.0.1:${await freePort()}/cam.ts`,
    });
    expect(closed.body).toEqual({
      ok: false,
      image: null,
      error: 'nothing answers at this address and port (connection refused)',
    });
    expect(
      (await x.a.operator.post('/api/v1/cameras/probe/snapshot', { node_id: realId, url: sourceUrl })).status,
    ).toBe(403);
    const metadata = await x.a.admin.post('/api/v1/cameras/probe/snapshot', {
      node_id: realId,
      url: 'http://169.254.169.254/x',
    });
    expect([metadata.status, metadata.body]).toEqual([400, { error: 'bad_source_url' }]);
  });
});
