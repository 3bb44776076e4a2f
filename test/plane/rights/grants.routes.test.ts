import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { tenants, createUser, lastAudit, unique, NOT_FOUND, randomId, type Tenants } from '../inventory.helpers.js';

let t: TestPlane;
let x: Tenants;
let camA: string, camA2: string, camB: string, tagA: string, tagB: string;
beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  const node = (
    await x.root.post('/api/v1/nodes', { name: unique('n'), url: 'http://127.0.0.1:8081', api_token: 'tok' })
  ).body.id;
  const cam = async (c: typeof x.root, name: string) =>
    (await c.post('/api/v1/cameras', { name, node_id: node, main_source: 'rtsp://h/1' })).body.id;
  camA = await cam(x.a.admin, 'a1');
  camA2 = await cam(x.a.admin, 'a2');
  camB = await cam(x.b.admin, 'b1');
  tagA = (await x.a.admin.post('/api/v1/tags', { name: 'ta' })).body.id;
  tagB = (await x.b.admin.post('/api/v1/tags', { name: 'tb' })).body.id;
});
afterAll(async () => {
  await t?.close();
});

describe('camera rights (grants)', () => {
  it('starts empty; PUT replaces both lists (deduplicated, sorted); audited grant.update', async () => {
    const u = x.a.operatorId;
    expect((await x.a.admin.get(`/api/v1/users/${u}/grants`)).body).toEqual({ camera_ids: [], tag_ids: [] });
    const r = await x.a.admin.put(`/api/v1/users/${u}/grants`, { camera_ids: [camA2, camA, camA], tag_ids: [tagA] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ camera_ids: [camA, camA2].sort(), tag_ids: [tagA] });
    expect((await x.a.admin.get(`/api/v1/users/${u}/grants`)).body).toEqual(r.body);
    const a = await lastAudit(x.root, 'grant.update', u);
    expect(a).toMatchObject({ org_id: x.a.orgId, object_type: 'user' });
    const replaced = await x.a.admin.put(`/api/v1/users/${u}/grants`, { camera_ids: [camA], tag_ids: [] });
    expect(replaced.body).toEqual({ camera_ids: [camA], tag_ids: [] });
    expect((await x.a.admin.get(`/api/v1/users/${u}/grants`)).body).toEqual(replaced.body);
  });

  it("ids must belong to the user's organisation: 400 unknown_camera / unknown_tag", async () => {
    const u = x.a.operatorId;
    for (const [body, code] of [
      [{ camera_ids: [camB], tag_ids: [] }, 'unknown_camera'],
      [{ camera_ids: [randomId()], tag_ids: [] }, 'unknown_camera'],
      [{ camera_ids: ['x'], tag_ids: [] }, 'unknown_camera'],
      [{ camera_ids: [], tag_ids: [tagB] }, 'unknown_tag'],
    ] as const) {
      const r = await x.a.admin.put(`/api/v1/users/${u}/grants`, body);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: code });
    }
    // even a superadmin cannot give org B's camera to a user of org A
    expect((await x.root.put(`/api/v1/users/${u}/grants`, { camera_ids: [camB], tag_ids: [] })).body).toEqual({
      error: 'unknown_camera',
    });
    expect((await x.a.admin.put(`/api/v1/users/${u}/grants`, { camera_ids: [] })).body).toEqual({
      error: 'unknown_tag',
    });
    expect((await x.a.admin.put(`/api/v1/users/${u}/grants`, { camera_ids: camA, tag_ids: [] })).body).toEqual({
      error: 'unknown_camera',
    });
    expect((await x.a.admin.put(`/api/v1/users/${u}/grants`, { camera_ids: [], tag_ids: [], extra: 1 })).body).toEqual({
      error: 'unknown_field',
    });
  });

  it('a foreign or unknown user is 404 (same bytes); operators 403; anonymous 401', async () => {
    const unknown = await x.a.admin.get(`/api/v1/users/${randomId()}/grants`);
    expect(unknown.text).toBe(NOT_FOUND);
    for (const r of [
      await x.a.admin.get(`/api/v1/users/${x.b.operatorId}/grants`),
      await x.a.admin.put(`/api/v1/users/${x.b.operatorId}/grants`, { camera_ids: [], tag_ids: [] }),
      await x.a.admin.get('/api/v1/users/nope/grants'),
    ]) {
      expect(r.status).toBe(404);
      expect(r.text).toBe(NOT_FOUND);
    }
    for (const [m, body] of [
      ['GET', undefined],
      ['PUT', { camera_ids: [], tag_ids: [] }],
    ] as const) {
      const r = await x.a.operator.req(m, `/api/v1/users/${x.a.operatorId}/grants`, body);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: 'forbidden' });
      expect((await x.anon.req(m, `/api/v1/users/${x.a.operatorId}/grants`, body)).status).toBe(401);
    }
    expect((await x.root.get(`/api/v1/users/${x.b.operatorId}/grants`)).status).toBe(200);
  });

  it('deleting a granted camera or tag removes the grant', async () => {
    const u = await createUser(t, x.a.admin, { login: unique('g') });
    const node = (await x.root.get('/api/v1/nodes')).body.rows[0].id;
    const cam = (await x.a.admin.post('/api/v1/cameras', { name: 'tmp', node_id: node, main_source: 'rtsp://h/1' }))
      .body.id;
    const tag = (await x.a.admin.post('/api/v1/tags', { name: unique('tmp') })).body.id;
    await x.a.admin.put(`/api/v1/users/${u.id}/grants`, { camera_ids: [cam], tag_ids: [tag] });
    await x.a.admin.del(`/api/v1/cameras/${cam}`);
    await x.a.admin.del(`/api/v1/tags/${tag}`);
    expect((await x.a.admin.get(`/api/v1/users/${u.id}/grants`)).body).toEqual({ camera_ids: [], tag_ids: [] });
  });
});
