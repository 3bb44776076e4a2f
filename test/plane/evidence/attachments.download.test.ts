import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, lastAudit, NOT_FOUND, type Tenants, cameraWorld } from '../inventory.helpers.js';
import { LocalEvidenceStorage } from '../../../src/plane/evidence/evidence.storage.js';

let t: TestPlane;
let x: Tenants;
let dir: string;
let cam1: string, cam2: string;
let mod: Client;

async function upload(bytes: Buffer, type = 'image/jpeg'): Promise<string> {
  const r = await mod.req('POST', '/api/v1/attachments', bytes, { 'content-type': type });
  expect(r.status, r.text).toBe(201);
  return r.body.ref;
}
async function attach(ref: string, camera: string | null) {
  const r = await mod.post('/api/v1/events', {
    events: [{ detector: 'snap', occurred_at: new Date().toISOString(), camera_id: camera, attachments: [ref] }],
  });
  expect(r.body.results[0].id, r.text).toBeDefined();
}
const keyOf = async (ref: string) =>
  (
    await t.db.database.db
      .selectFrom('attachments')
      .select('storage_key')
      .where('ref', '=', ref)
      .executeTakeFirstOrThrow()
  ).storage_key;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-evidence-'));
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

describe('GET /api/v1/attachments/{ref}', () => {
  it('the bytes with the original type, exact length, no-store and no-cache; audited as data.blob_download', async () => {
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
    const ref = await upload(bytes, 'image/png');
    await attach(ref, cam1);
    const r = await x.a.operator.get(`/api/v1/attachments/${ref}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('image/png');
    expect(r.headers['content-length']).toBe('1000');
    expect(r.headers['cache-control']).toBe('private, no-store');
    expect(r.headers['pragma']).toBe('no-cache');
    const res = await t.plane.app.inject({
      method: 'GET',
      url: `/api/v1/attachments/${ref}`,
      headers: { authorization: `Bearer ${x.a.operator.token}` },
    });
    expect(res.rawPayload).toEqual(bytes);
    const audit = await lastAudit(x.root, 'data.blob_download', ref);
    expect(audit).toMatchObject({
      org_id: x.a.orgId,
      object_type: 'attachment',
      params: { size: 1000, preview: false },
    });
  });

  it('camera rights on every request: 404 alike for unknown, malformed, foreign and ungranted; unbound ones are for administrators', async () => {
    const other = await upload(Buffer.from('other'));
    await attach(other, cam2);
    const unbound = await upload(Buffer.from('unbound'));
    for (const [c, ref] of [
      [x.a.operator, other],
      [x.a.operator, unbound],
      [x.b.admin, other],
      [x.b.operator, unbound],
      [x.a.admin, 'nope'],
      [x.a.admin, '00000000-0000-4000-8000-000000000000'],
      [x.a.admin, '0190d3c4-0000-7000-8000-000000000000'],
    ] as Array<[Client, string]>) {
      const r = await c.get(`/api/v1/attachments/${ref}`);
      expect([r.status, r.text], ref).toEqual([404, NOT_FOUND]);
    }
    expect((await x.a.admin.get(`/api/v1/attachments/${unbound}`)).text).toBe('unbound');
    expect((await x.root.get(`/api/v1/attachments/${other}`)).text).toBe('other');
    expect((await x.anon.get(`/api/v1/attachments/${other}`)).status).toBe(401);
    // a module token is not a session
    expect((await mod.get(`/api/v1/attachments/${other}`)).status).toBe(401);
    // rights are rechecked: a revoked grant ends access at once
    const mine = await upload(Buffer.from('mine'));
    await attach(mine, cam1);
    expect((await x.a.operator.get(`/api/v1/attachments/${mine}`)).status).toBe(200);
    await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [], tag_ids: [] });
    expect((await x.a.operator.get(`/api/v1/attachments/${mine}`)).text).toBe(NOT_FOUND);
    await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] });
  });

  it('404 object_gone when the metadata is there but the bytes are not', async () => {
    const ref = await upload(Buffer.from('vanishing'));
    await unlink(join(dir, await keyOf(ref)));
    const r = await x.a.admin.get(`/api/v1/attachments/${ref}`);
    expect([r.status, r.body]).toEqual([404, { error: 'object_gone' }]);
  });

  it('the local backend reads in 64 KiB frames', async () => {
    const ref = await upload(Buffer.alloc(200_000, 1));
    const opened = (await new LocalEvidenceStorage(dir).open(await keyOf(ref)))!;
    const sizes: number[] = [];
    for await (const c of opened.body) sizes.push((c as Buffer).length);
    expect(opened.size).toBe(200_000);
    expect(Math.max(...sizes)).toBe(64 * 1024);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(200_000);
  });

  it('4 response slots: a fifth concurrent download is 429 event_response_busy; a slot frees when its body ends', async () => {
    const ref = await upload(Buffer.alloc(16 * 1024 * 1024, 7), 'video/mp4');
    await t.plane.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.plane.app.server.address() as { port: number }).port;
    const open = () =>
      new Promise<IncomingMessage>((res, rej) => {
        const req = get(
          {
            host: '127.0.0.1',
            port,
            path: `/api/v1/attachments/${ref}`,
            headers: { authorization: `Bearer ${x.a.admin.token}` },
          },
          (r) => {
            r.pause();
            res(r);
          },
        );
        req.on('error', rej);
      });
    const held = [await open(), await open(), await open(), await open()];
    for (const r of held) expect(r.statusCode).toBe(200);
    const busy = await x.a.admin.get(`/api/v1/attachments/${ref}`);
    expect([busy.status, busy.body]).toEqual([429, { error: 'event_response_busy', retry_after: 1 }]);
    expect(busy.headers['retry-after']).toBe('1');
    held[0]!.destroy();
    // The plane frees the slot when it sees the connection close, which a loaded machine does not
    // do within any fixed time: ask again until a slot is given (the bound is for a slot never freed).
    let again = await open();
    for (const end = Date.now() + 30_000; again.statusCode === 429 && Date.now() < end; again = await open()) {
      again.destroy();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(again.statusCode).toBe(200);
    for (const r of [...held, again]) r.destroy();
  });
});
