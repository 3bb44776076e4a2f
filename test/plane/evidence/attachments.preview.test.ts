import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, unlink } from 'node:fs/promises';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, lastAudit, NOT_FOUND, type Tenants, cameraWorld } from '../inventory.helpers.js';
import { ffmpegOnPath, previewKey, previewKind, PREVIEW_BOX } from '../../../src/plane/evidence/preview.builder.js';

let t: TestPlane;
let x: Tenants;
let dir: string;
let cam1: string, cam2: string;
let mod: Client;
const ffmpeg = ffmpegOnPath();

async function upload(bytes: Buffer, type: string): Promise<string> {
  const r = await mod.req('POST', '/api/v1/attachments', bytes, { 'content-type': type });
  expect(r.status, r.text).toBe(201);
  return r.body.ref;
}
async function attach(ref: string, camera: string | null): Promise<{ id: string; occurred_at: Date }> {
  const occurred = new Date();
  const r = await mod.post('/api/v1/events', {
    events: [{ detector: 'snap', occurred_at: occurred.toISOString(), camera_id: camera, attachments: [ref] }],
  });
  expect(r.body.results[0].id, r.text).toBeDefined();
  return { id: r.body.results[0].id, occurred_at: occurred };
}
const keyOf = async (ref: string) =>
  (
    await t.db.database.db
      .selectFrom('attachments')
      .select('storage_key')
      .where('ref', '=', ref)
      .executeTakeFirstOrThrow()
  ).storage_key;
const built = () => t.plane.services.previews.builder.idle();
const raw = (c: Client, ref: string) =>
  t.plane.app.inject({
    method: 'GET',
    url: `/api/v1/attachments/${ref}/preview`,
    headers: { authorization: `Bearer ${c.token}` },
  });
const png = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .png()
    .toBuffer();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-preview-'));
  t = await startPlane({ config: { evidence: { backend: 'local', dir } } });
  x = await tenants(t);
  const world = await cameraWorld(t, x);
  const cam = () => world.camera(x.a.admin);
  cam1 = await cam();
  cam2 = await cam();
  await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] });
  mod = await world.moduleToken(x.a.admin);
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('GET /api/v1/attachments/{ref}/preview', () => {
  it('an image: a JPEG within 320 x 320 built in the background; exact length, no-store and no-cache; audited with preview true', async () => {
    const ref = await upload(await png(1280, 720), 'image/png');
    await attach(ref, cam1);
    await built();
    const r = await raw(x.a.operator, ref);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['content-type']).toBe('image/jpeg');
    expect(r.headers['content-length']).toBe(String(r.rawPayload.length));
    expect(r.headers['cache-control']).toBe('private, no-store');
    expect(r.headers['pragma']).toBe('no-cache');
    expect([...r.rawPayload.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const meta = await sharp(r.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', PREVIEW_BOX, 180]);
    // stored next to the evidence
    expect(await readFile(join(dir, previewKey(await keyOf(ref))))).toEqual(r.rawPayload);
    const audit = await lastAudit(x.root, 'data.blob_download', ref);
    expect(audit).toMatchObject({
      org_id: x.a.orgId,
      object_type: 'attachment',
      params: { size: r.rawPayload.length, preview: true },
    });
    // a small image is not enlarged
    const small = await upload(await png(40, 30), 'image/png');
    await built();
    const s = await raw(x.a.admin, small);
    expect([(await sharp(s.rawPayload).metadata()).width, (await sharp(s.rawPayload).metadata()).height]).toEqual([
      40, 30,
    ]);
  });

  it.skipIf(!ffmpeg)('a video: a JPEG of its first frame, never the video', async () => {
    const file = join(dir, 'clip.mp4');
    execFileSync(ffmpeg!, [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=640x360:rate=5',
      '-t',
      '1',
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      '-y',
      file,
    ]);
    const bytes = await readFile(file);
    const ref = await upload(bytes, 'video/mp4');
    await attach(ref, cam1);
    await built();
    const r = await raw(x.a.operator, ref);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['content-type']).toBe('image/jpeg');
    expect(r.headers['content-length']).toBe(String(r.rawPayload.length));
    expect(r.rawPayload.length).toBeLessThan(bytes.length);
    const meta = await sharp(r.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 180]);
  });

  it('404 no_preview: a type without a preview, a build that failed, one not built yet (a request queues it)', async () => {
    const text = await upload(Buffer.from('plain text'), 'text/plain');
    const broken = await upload(Buffer.from('not a png at all'), 'image/png');
    await built();
    for (const ref of [text, broken, text]) {
      const r = await x.a.admin.get(`/api/v1/attachments/${ref}/preview`);
      expect([r.status, r.body], ref).toEqual([404, { error: 'no_preview' }]);
    }
    await built();
    expect((await x.a.admin.get(`/api/v1/attachments/${broken}/preview`)).body).toEqual({ error: 'no_preview' });
    // a preview lost (or never built, e.g. a restart emptied the queue) is built on the next request
    const ref = await upload(await png(64, 64), 'image/jpeg');
    await built();
    await unlink(join(dir, previewKey(await keyOf(ref))));
    expect((await x.a.admin.get(`/api/v1/attachments/${ref}/preview`)).body).toEqual({ error: 'no_preview' });
    await built();
    expect((await raw(x.a.admin, ref)).statusCode).toBe(200);
    expect(previewKind('image/svg+xml', ffmpeg)).toBeNull();
    expect(previewKind('video/mp4', null)).toBeNull();
    expect(previewKind('IMAGE/JPEG; q=1', null)).toBe('image');
  });

  it('camera rights on every request: 404 alike for unknown, malformed, foreign and ungranted; unbound ones are for administrators', async () => {
    const other = await upload(await png(10, 10), 'image/png');
    await attach(other, cam2);
    const unbound = await upload(await png(10, 10), 'image/png');
    await built();
    for (const [c, ref] of [
      [x.a.operator, other],
      [x.a.operator, unbound],
      [x.b.admin, other],
      [x.b.operator, unbound],
      [x.a.admin, 'nope'],
      [x.a.admin, '00000000-0000-4000-8000-000000000000'],
      [x.a.admin, '0190d3c4-0000-7000-8000-000000000000'],
    ] as Array<[Client, string]>) {
      const r = await c.get(`/api/v1/attachments/${ref}/preview`);
      expect([r.status, r.text], ref).toEqual([404, NOT_FOUND]);
    }
    expect((await raw(x.a.admin, unbound)).statusCode).toBe(200);
    expect((await raw(x.root, other)).statusCode).toBe(200);
    expect((await x.anon.get(`/api/v1/attachments/${other}/preview`)).status).toBe(401);
    expect((await mod.get(`/api/v1/attachments/${other}/preview`)).status).toBe(401);
    const mine = await upload(await png(10, 10), 'image/png');
    await attach(mine, cam1);
    await built();
    expect((await raw(x.a.operator, mine)).statusCode).toBe(200);
    await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [], tag_ids: [] });
    expect((await x.a.operator.get(`/api/v1/attachments/${mine}/preview`)).text).toBe(NOT_FOUND);
    await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] });
  });

  it('404 object_gone when the evidence bytes are gone, even with a preview built', async () => {
    const ref = await upload(await png(10, 10), 'image/png');
    await built();
    expect((await raw(x.a.admin, ref)).statusCode).toBe(200);
    await unlink(join(dir, await keyOf(ref)));
    const r = await x.a.admin.get(`/api/v1/attachments/${ref}/preview`);
    expect([r.status, r.body]).toEqual([404, { error: 'object_gone' }]);
  });

  it('the 4 response slots are shared with downloads: a preview beside 4 open downloads is 429 event_response_busy', async () => {
    const big = await upload(Buffer.alloc(16 * 1024 * 1024, 7), 'video/x-unknown-codec');
    const ref = await upload(await png(10, 10), 'image/png');
    await built();
    await t.plane.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.plane.app.server.address() as { port: number }).port;
    const open = (path: string) =>
      new Promise<IncomingMessage>((res, rej) => {
        const req = get(
          { host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${x.a.admin.token}` } },
          (r) => {
            r.pause();
            res(r);
          },
        );
        req.on('error', rej);
      });
    const held = [];
    for (let i = 0; i < 4; i++) held.push(await open(`/api/v1/attachments/${big}`));
    for (const r of held) expect(r.statusCode).toBe(200);
    const busy = await x.a.admin.get(`/api/v1/attachments/${ref}/preview`);
    expect([busy.status, busy.body]).toEqual([429, { error: 'event_response_busy', retry_after: 1 }]);
    expect(busy.headers['retry-after']).toBe('1');
    held[0]!.destroy();
    await new Promise((r) => setTimeout(r, 200));
    const again = await open(`/api/v1/attachments/${ref}/preview`);
    expect(again.statusCode).toBe(200);
    for (const r of [...held, again]) r.destroy();
  });

  it('410 archived_data_expired once its event is purged, to those who saw it; the preview bytes go with the evidence', async () => {
    const ref = await upload(await png(10, 10), 'image/png');
    const ev = await attach(ref, cam1);
    await built();
    expect((await raw(x.a.operator, ref)).statusCode).toBe(200);
    const key = await keyOf(ref);
    const evidence = t.plane.services.evidence;
    const gone = await t.db.database.db.transaction().execute((trx) => evidence.purgeOfEvents(trx, [ev]));
    await evidence.deleteBytes(gone.map((g) => g.storage_key));
    for (const c of [x.a.operator, x.a.admin]) {
      const r = await c.get(`/api/v1/attachments/${ref}/preview`);
      expect([r.status, r.body]).toEqual([410, { error: 'archived_data_expired' }]);
    }
    expect((await x.b.admin.get(`/api/v1/attachments/${ref}/preview`)).text).toBe(NOT_FOUND);
    await expect(readFile(join(dir, previewKey(key)))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
