import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { startPlane, CANARY, type TestPlane } from '../harness.js';
import { tenants, lastAudit, unique, NOT_FOUND, randomId, type Tenants } from '../inventory.helpers.js';
import { ViewerAccess } from '../../../src/node/media/viewer/viewer.service.js';

const SECRET = `viewer-secret-${CANARY}-0123456789`;
let t: TestPlane;
let x: Tenants;
let nodeId: string, bareNode: string;
let cam: { id: string; name: string }, bare: { id: string };

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  nodeId = (
    await x.root.post('/api/v1/nodes', {
      name: unique('n'),
      url: 'http://10.0.0.7:8081',
      api_token: 'tok-1',
      auth_backend_secret: SECRET,
    })
  ).body.id;
  bareNode = (
    await x.root.post('/api/v1/nodes', { name: unique('n'), url: 'http://10.0.0.8:8081', api_token: 'tok-2' })
  ).body.id;
  cam = (
    await x.a.admin.post('/api/v1/cameras', {
      name: 'Gate',
      node_id: nodeId,
      main_source: 'rtsp://10.1.1.1/main',
      sub_source: 'rtsp://10.1.1.1/sub',
    })
  ).body;
  bare = (await x.a.admin.post('/api/v1/cameras', { name: 'Bare', node_id: bareNode, main_source: 'testsrc://smpte' }))
    .body;
});
afterAll(async () => {
  await t?.close();
});

const play = (c = x.a.admin, id = cam.id, body: unknown = {}) => c.post(`/api/v1/cameras/${id}/play`, body);
const key = new TextEncoder().encode(SECRET);

describe('POST /api/v1/cameras/{id}/play', () => {
  it("signs a live viewer token for the camera's node with its secret; audited view.live", async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await play();
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['expires_at', 'token', 'url']);
    expect(r.body.url).toBe(`http://10.0.0.7:8081/${cam.id}_main/index.m3u8`);
    expect(decodeProtectedHeader(r.body.token).alg).toBe('HS256');
    const { payload } = await jwtVerify(r.body.token, key, { algorithms: ['HS256'] });
    expect(payload).toMatchObject({
      typ: 'viewer',
      stream: `${cam.id}_main`,
      protocols: ['hls', 'ws'],
      sub: x.a.adminId,
      subject_kind: 'user',
      camera_id: cam.id,
    });
    expect(typeof payload.subject_name).toBe('string');
    expect(payload.exp! - before).toBeGreaterThanOrEqual(299);
    expect(payload.exp! - before).toBeLessThanOrEqual(301);
    expect(Date.parse(r.body.expires_at)).toBe(payload.exp! * 1000);
    expect(r.text).not.toContain(CANARY);
    const a = await lastAudit(x.root, 'view.live', cam.id);
    expect(a).toMatchObject({
      org_id: x.a.orgId,
      node_id: nodeId,
      object_type: 'camera',
      object_name: 'Gate',
      actor_id: x.a.adminId,
    });
    const one = await x.root.get(`/api/v1/audit/${a.id}?occurred_at=${encodeURIComponent(a.occurred_at)}`);
    expect(one.body.params).toEqual({ profile: 'MAIN', stream: `${cam.id}_main` });
    expect(one.text).not.toContain(CANARY);
    expect(one.text).not.toContain(r.body.token);
  });

  it('is accepted by the node for that stream only', async () => {
    const access = new ViewerAccess({ now: () => Date.now() }, null as any, null as any);
    const backend = { kind: 'hs256', secret: SECRET } as any;
    const token = (await play()).body.token;
    const claims = await access.admit(backend, { stream: `${cam.id}_main`, kind: 'live', address: '10.9.9.9', token });
    expect(claims).toMatchObject({
      stream: `${cam.id}_main`,
      sub: x.a.adminId,
      subject_kind: 'user',
      camera_id: cam.id,
    });
    await expect(
      access.admit(backend, { stream: `${cam.id}_sub`, kind: 'live', address: '10.9.9.9', token }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      access.admit({ kind: 'hs256', secret: 'another-secret-entirely' } as any, {
        stream: `${cam.id}_main`,
        kind: 'live',
        address: '10.9.9.9',
        token,
      }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('plays the SUB profile; a camera without one is 400 bad_profile', async () => {
    const r = await play(x.a.admin, cam.id, { profile: 'SUB', intent: 'live' });
    expect(r.status).toBe(200);
    expect(r.body.url).toBe(`http://10.0.0.7:8081/${cam.id}_sub/index.m3u8`);
    expect((await jwtVerify(r.body.token, key)).payload.stream).toBe(`${cam.id}_sub`);
    const onlyMain = await x.a.admin.post('/api/v1/cameras', {
      name: 'Main only',
      node_id: nodeId,
      main_source: 'testsrc://smpte',
    });
    expect((await play(x.a.admin, onlyMain.body.id, { profile: 'SUB' })).body).toEqual({ error: 'bad_profile' });
  });

  it('plays a recorded range for intent playback; audited view.playback', async () => {
    const from = Math.floor(Date.now() / 1000) - 3600;
    const r = await play(x.a.admin, cam.id, { intent: 'playback', from, duration: 600 });
    expect(r.status).toBe(200);
    expect(r.body.url).toBe(`http://10.0.0.7:8081/${cam.id}_main/index-${from}-600.m3u8`);
    const a = await lastAudit(x.root, 'view.playback', cam.id);
    const one = await x.root.get(`/api/v1/audit/${a.id}?occurred_at=${encodeURIComponent(a.occurred_at)}`);
    expect(one.body.params).toEqual({ profile: 'MAIN', stream: `${cam.id}_main`, from, duration: 600 });
  });

  it.each([
    [{ intent: 'playback' }, 'bad_range'],
    [{ intent: 'playback', from: 1 }, 'bad_range'],
    [{ intent: 'playback', from: 1, duration: 0 }, 'bad_range'],
    [{ intent: 'playback', from: 1, duration: 86_401 }, 'bad_range'],
    [{ intent: 'playback', from: -1, duration: 10 }, 'bad_range'],
    [{ intent: 'playback', from: '1', duration: 10 }, 'bad_range'],
    [{ intent: 'live', from: 1, duration: 10 }, 'bad_range'],
    [{ intent: 'export' }, 'bad_intent'],
    [{ profile: 'main' }, 'bad_profile'],
    [{ profile: null }, 'bad_profile'],
    [{ token: 'x' }, 'unknown_field'],
  ])('answers 400 for %j', async (body, code) => {
    const r = await play(x.a.admin, cam.id, body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: code });
  });

  it('takes no body as a live view of the main profile', async () => {
    const r = await x.a.admin.post(`/api/v1/cameras/${cam.id}/play`);
    expect(r.status).toBe(200);
    expect(r.body.url).toBe(`http://10.0.0.7:8081/${cam.id}_main/index.m3u8`);
  });

  it('only for a camera the caller may see: an operator needs a grant; another organisation gets 404 like a missing camera', async () => {
    const hidden = await play(x.a.operator);
    expect(hidden.status).toBe(404);
    expect(hidden.text).toBe(NOT_FOUND);
    expect((await play(x.a.operator, randomId())).text).toBe(NOT_FOUND);
    expect(
      (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam.id], tag_ids: [] })).status,
    ).toBe(200);
    const granted = await play(x.a.operator);
    expect(granted.status).toBe(200);
    expect((await jwtVerify(granted.body.token, key)).payload.sub).toBe(x.a.operatorId);
    for (const c of [x.b.admin, x.b.operator]) expect((await play(c)).text).toBe(NOT_FOUND);
    expect((await play(x.root)).status).toBe(200);
    expect((await play(x.anon)).body).toEqual({ error: 'unauthorized' });
  });

  it('answers 409 viewer_secret_unset for a node whose auth_backend_secret the plane does not hold', async () => {
    const r = await play(x.a.admin, bare.id);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: 'viewer_secret_unset' });
  });
});
