import { createHash, verify, createPublicKey } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { startPlane, CANARY, type TestPlane } from '../harness.js';
import { tenants, lastAudit, unique, NOT_FOUND, type Tenants } from '../inventory.helpers.js';
import type { Client } from '../client.js';
import { ExportNode } from './export-node.js';
import { makeMp4 } from './mp4.js';
import { planeZone, wallClock } from '../../../src/plane/exports/export-name.js';
import { HTTP_LIMITS } from '../../../src/plane/http/limits.js';
import { ViewerAccess } from '../../../src/node/media/viewer/viewer.service.js';

const SECRET = `viewer-secret-${CANARY}-0123456789`;
const FROM = '2026-03-08T07:30:00Z'; // 03:30 in New York, half an hour after the clocks went forward
const FROM_SECS = Date.parse(FROM) / 1000;
const IDLE_MS = 1500;
let t: TestPlane;
let x: Tenants;
let node: ExportNode;
let dir: string;
let mp4: Buffer;
let cam: { id: string; name: string };
let onlyMain: { id: string };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-exports-'));
  node = await ExportNode.start(SECRET);
  node.file = join(dir, 'source.mp4');
  await makeMp4(node.file);
  mp4 = await readFile(node.file);
  await writeFile(join(dir, 'plane.toml'), 'dvr_export_max_secs = 600\n');
  // A short idle bound: an export whose node takes longer than it to make the file still arrives.
  t = await startPlane({
    config: {
      dataDir: join(dir, 'data'),
      configFile: join(dir, 'plane.toml'),
      http: { ...HTTP_LIMITS, idleTimeoutMs: IDLE_MS },
    },
  });
  x = await tenants(t);
  const nodeId = (
    await x.root.post('/api/v1/nodes', {
      name: unique('n'),
      url: node.url,
      api_token: 'node-write-token-123456',
      auth_backend_secret: SECRET,
    })
  ).body.id;
  const mk = (body: Record<string, unknown>) =>
    x.a.admin.post('/api/v1/cameras', { node_id: nodeId, main_source: 'rtsp://10.1.1.1/main', ...body });
  cam = (await mk({ name: 'Gate "North" Café', sub_source: 'rtsp://10.1.1.1/sub' })).body;
  onlyMain = (await mk({ name: 'Yard' })).body;
});
afterAll(async () => {
  await t?.close();
  await node?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function get(c: Client, url: string) {
  const r = await t.plane.app.inject({
    method: 'GET',
    url,
    headers: c.token ? { authorization: `Bearer ${c.token}` } : {},
  });
  const json = String(r.headers['content-type'] ?? '').startsWith('application/json') ? r.json() : undefined;
  return { status: r.statusCode, headers: r.headers, bytes: r.rawPayload, json };
}
let listened: Promise<string> | null = null;
/** The plane on a real socket (inject has none), once for the file. */
const listening = () => (listened ??= t.plane.app.listen({ port: 0, host: '127.0.0.1' }));
const exportUrl = (id: string, q: string) => `/api/v1/cameras/${id}/export?${q}`;
const ok = (extra = '') => exportUrl(cam.id, `from=${FROM}&duration=90${extra}`);

function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out = new Map<string, Buffer>();
      zip.on('entry', (e: yauzl.Entry) => {
        expect(e.compressionMethod).toBe(0);
        zip.openReadStream(e, async (err2, s) => {
          if (err2) return reject(err2);
          const chunks: Buffer[] = [];
          for await (const c of s) chunks.push(c as Buffer);
          out.set(e.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
      zip.on('end', () => resolve(out));
      zip.readEntry();
    });
  });
}

describe('GET /api/v1/cameras/{id}/export', () => {
  it("streams the node's MP4 of the range as the caller's viewer token asked it; audited media.export", async () => {
    const r = await get(x.a.admin, ok());
    expect(r.status, r.bytes.toString()).toBe(200);
    expect(r.headers['content-type']).toBe('video/mp4');
    expect(r.headers['content-length']).toBe(String(mp4.length));
    expect(r.headers['cache-control']).toBe('private, no-store');
    expect(Buffer.compare(r.bytes, mp4)).toBe(0);
    const asked = node.exports.at(-1)!;
    expect(asked).toMatchObject({ stream: `${cam.id}_main`, from: FROM_SECS, secs: 90 });
    expect(asked.claims).toMatchObject({ typ: 'viewer', sub: x.a.adminId, camera_id: cam.id, protocols: ['hls'] });
    // The node's own viewer admission takes it for an export of that stream, and for no other stream.
    const access = new ViewerAccess({ now: () => Date.now() }, null as never, null as never);
    const backend = { kind: 'hs256', secret: SECRET } as const;
    const use = { stream: `${cam.id}_main`, kind: 'export', address: '127.0.0.1', token: asked.token } as const;
    await expect(access.admit(backend, use)).resolves.toMatchObject({ camera_id: cam.id, sub: x.a.adminId });
    await expect(access.admit(backend, { ...use, stream: `${cam.id}_sub` })).rejects.toMatchObject({ status: 403 });
    const a = await lastAudit(x.root, 'media.export', cam.id);
    expect(a).toMatchObject({ org_id: x.a.orgId, object_type: 'camera', object_name: cam.name, actor_id: x.a.adminId });
    const one = await x.root.get(`/api/v1/audit/${a.id}?occurred_at=${encodeURIComponent(a.occurred_at)}`);
    expect(one.body.params).toEqual({
      camera_id: cam.id,
      from: '2026-03-08T07:30:00.000Z',
      duration: 90,
      stream: 'main',
      manifest: false,
    });
    expect(one.text).not.toContain(SECRET);
    expect(JSON.stringify(a)).not.toContain('token');
  });

  it("names the file in the zone of the preferences (across DST), else the plane's, the name made safe", async () => {
    const plain = await get(x.a.admin, ok());
    const inPlaneZone = wallClock(Date.parse(FROM), planeZone());
    expect(plain.headers['content-disposition']).toBe(
      `attachment; filename="Gate _North_ Caf__${inPlaneZone}_1m30s.mp4"; filename*=UTF-8''Gate%20_North_%20Caf%C3%A9_${inPlaneZone}_1m30s.mp4`,
    );
    const put = await x.a.admin.put('/api/v1/me/preferences', {
      timezone: 'America/New_York',
      clock: '24h',
      views: [],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const r = await get(x.a.admin, ok('&manifest=1'));
    expect(r.headers['content-type']).toBe('application/zip');
    expect(r.headers['content-disposition']).toContain(
      `filename*=UTF-8''Gate%20_North_%20Caf%C3%A9_2026-03-08_03-30-00_1m30s.zip`,
    );
    // 06:30Z is 01:30 EST, the hour before the jump: one hour earlier in UTC, two on the wall clock.
    const before = await get(x.a.admin, exportUrl(cam.id, 'from=2026-03-08T06:30:00Z&duration=3600'));
    expect(before.status).toBe(400);
    expect(before.json).toEqual({ error: 'export_too_long', max_secs: 600 });
    const early = await get(x.a.admin, exportUrl(cam.id, 'from=2026-03-08T06:30:00Z&duration=300'));
    expect(early.headers['content-disposition']).toContain('_2026-03-08_01-30-00_5m.mp4');
  });

  it('with manifest=1: a stored zip of export.mp4, manifest.json and manifest.sig, signed with the served key', async () => {
    const r = await get(x.a.admin, ok('&manifest=1&stream=sub'));
    expect(r.status).toBe(200);
    expect(Number(r.headers['content-length'])).toBe(r.bytes.length);
    const files = await unzip(r.bytes);
    expect([...files.keys()]).toEqual(['export.mp4', 'manifest.json', 'manifest.sig']);
    expect(Buffer.compare(files.get('export.mp4')!, mp4)).toBe(0);
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
    const a = await lastAudit(x.root, 'media.export', cam.id);
    expect(manifest).toEqual({
      camera_id: cam.id,
      camera_name: cam.name,
      stream: 'sub',
      from: '2026-03-08T07:30:00.000Z',
      to: '2026-03-08T07:31:30.000Z',
      sha256: createHash('sha256').update(mp4).digest('hex'),
      exported_by: expect.any(String),
      exported_at: expect.any(String),
      audit_id: a.id,
    });
    expect(Math.abs(Date.parse(manifest.exported_at) - Date.parse(a.occurred_at))).toBeLessThan(5000);
    expect(node.exports.at(-1)!.stream).toBe(`${cam.id}_sub`);
    const key = await x.a.operator.get('/api/v1/export-key');
    expect(key.status).toBe(200);
    expect(key.body.alg).toBe('Ed25519');
    expect(key.body.key).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const sig = Buffer.from(files.get('manifest.sig')!.toString('ascii').trim(), 'base64');
    expect(verify(null, files.get('manifest.json')!, createPublicKey(key.body.key), sig)).toBe(true);
    // The key is a 0600 file of the data folder; nothing of the export is left in its temp folder.
    const { mode } = await import('node:fs/promises').then((f) => f.stat(join(dir, 'data', 'export-key.pem')));
    expect(mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'data', 'temp'))).toEqual([]);
    expect(t.logs.text).not.toContain('PRIVATE KEY');
  });

  it('refuses a camera the caller may not see as the camera routes do: 404, and 401 without a session', async () => {
    expect((await get(x.b.admin, ok())).json).toEqual(JSON.parse(NOT_FOUND));
    expect((await get(x.b.operator, ok())).status).toBe(404);
    // an operator of the same organisation sees only the cameras granted to it
    expect((await get(x.a.operator, ok())).status).toBe(404);
    expect((await get(x.anon, ok())).status).toBe(401);
    expect((await get(x.anon, '/api/v1/export-key')).status).toBe(401);
    expect((await get(x.a.admin, exportUrl('nope', `from=${FROM}&duration=9`))).status).toBe(404);
    // granted the camera, the operator may export it as it may watch it; the superadmin any camera
    const grant = (ids: string[]) =>
      x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: ids, tag_ids: [] });
    expect((await grant([cam.id])).status).toBe(200);
    try {
      expect((await get(x.a.operator, ok())).status).toBe(200);
      expect((await get(x.a.operator, exportUrl(onlyMain.id, `from=${FROM}&duration=9`))).status).toBe(404);
    } finally {
      await grant([]);
    }
    expect((await get(x.a.operator, ok())).status).toBe(404);
    expect((await get(x.root, ok())).status).toBe(200);
  });

  it('validates from, duration and stream with catalogue codes', async () => {
    const code = async (q: string, id = cam.id) => (await get(x.a.admin, exportUrl(id, q))).json;
    expect(await code('from=yesterday&duration=60')).toEqual({ error: 'bad_range' });
    expect(await code('from=1969-12-31T23:59:59Z&duration=60')).toEqual({ error: 'bad_range' });
    expect(await code(`from=${FROM}&duration=0`)).toEqual({ error: 'bad_range' });
    expect(await code(`from=${FROM}`)).toEqual({ error: 'bad_range' });
    expect(await code(`from=${FROM}&duration=601`)).toEqual({ error: 'export_too_long', max_secs: 600 });
    expect(await code(`from=${FROM}&duration=60&stream=hd`)).toEqual({ error: 'bad_profile' });
    expect(await code(`from=${FROM}&duration=60&stream=sub`, onlyMain.id)).toEqual({ error: 'bad_profile' });
    expect(await code(`from=${FROM}&duration=60&manifest=2`)).toEqual({ error: 'bad_request' });
  });

  it("answers the node's refusals as the plane's errors, and audits nothing then", async () => {
    const before = (await lastAudit(x.root, 'media.export', onlyMain.id)) as unknown;
    const cases: Array<[{ status: number; error: string }, number, unknown]> = [
      [{ status: 404, error: 'no_recording' }, 404, { error: 'no_recording' }],
      [{ status: 404, error: 'stream_not_found' }, 404, { error: 'no_recording' }],
      [{ status: 400, error: 'invalid_range' }, 400, { error: 'bad_range' }],
      [{ status: 500, error: 'export_failed' }, 502, { error: 'export_failed' }],
      [{ status: 403, error: 'forbidden' }, 502, { error: 'node_auth_failed' }],
      [{ status: 503, error: 'stream_not_ready' }, 502, { error: 'node_bad_reply', node_status: 503 }],
    ];
    try {
      for (const [refusal, status, body] of cases) {
        node.refuse = refusal;
        const r = await get(x.a.admin, exportUrl(onlyMain.id, `from=${FROM}&duration=60&manifest=1`));
        expect([r.status, r.json]).toEqual([status, body]);
      }
    } finally {
      node.refuse = null;
    }
    expect(await lastAudit(x.root, 'media.export', onlyMain.id)).toEqual(before);
  });

  it("passes the node's bytes on as they come: the client has the first half before the node sends the rest", async () => {
    const address = await listening();
    let open!: () => void;
    node.gate = new Promise<void>((r) => (open = r));
    try {
      const r = await fetch(`${address}${ok()}`, { headers: { authorization: `Bearer ${x.a.admin.token}` } });
      expect(r.status).toBe(200);
      const reader = r.body!.getReader();
      const got: Buffer[] = [];
      let size = 0;
      // A plane that buffered the file would send nothing until the node's last byte: this read would never end.
      while (size < Math.floor(mp4.length / 2)) {
        const { value, done } = await reader.read();
        if (done) break;
        got.push(Buffer.from(value));
        size += value.length;
      }
      expect(size).toBe(Math.floor(mp4.length / 2));
      open();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        got.push(Buffer.from(value));
      }
      expect(Buffer.compare(Buffer.concat(got), mp4)).toBe(0);
    } finally {
      open();
      node.gate = null;
    }
  });

  it("waits past the server's idle bound while the node makes the file, then keeps that bound", async () => {
    const address = await listening();
    node.delayMs = IDLE_MS * 2;
    try {
      const r = await fetch(`${address}${ok('&manifest=1')}`, {
        headers: { authorization: `Bearer ${x.a.admin.token}` },
      });
      expect(r.status).toBe(200);
      expect((await r.arrayBuffer()).byteLength).toBe(Number(r.headers.get('content-length')));
    } finally {
      node.delayMs = 0;
    }
  });

  it('a body cut short is 502 export_failed for a zip, and its spooled file is removed', async () => {
    node.cut = true;
    try {
      const r = await get(x.a.admin, exportUrl(onlyMain.id, `from=${FROM}&duration=60&manifest=1`));
      expect([r.status, r.json]).toEqual([502, { error: 'export_failed' }]);
    } finally {
      node.cut = false;
    }
    expect(await readdir(join(dir, 'data', 'temp'))).toEqual([]);
  });
});
