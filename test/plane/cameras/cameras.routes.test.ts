import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { tenants, lastAudit, unique, NOT_FOUND, randomId, type Tenants } from '../inventory.helpers.js';

let t: TestPlane;
let x: Tenants;
let nodeId: string;
let node2: string;
beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  nodeId = (await x.root.post('/api/v1/nodes', { name: unique('n'), url: 'http://127.0.0.1:8081', api_token: 'tok-1' }))
    .body.id;
  node2 = (await x.root.post('/api/v1/nodes', { name: unique('n'), url: 'http://127.0.0.1:8082', api_token: 'tok-2' }))
    .body.id;
});
afterAll(async () => {
  await t?.close();
});

const ROW = [
  'id',
  'org_id',
  'node_id',
  'name',
  'main_source',
  'sub_source',
  'tag_ids',
  'status',
  'profiles',
  'recording',
];

describe('cameras', () => {
  it('creates a camera (own organisation by default), unavailable, with MAIN and SUB profiles; audited camera.create', async () => {
    const tag = (await x.a.admin.post('/api/v1/tags', { name: unique('gate') })).body;
    const r = await x.a.admin.post('/api/v1/cameras', {
      name: 'Gate',
      node_id: nodeId,
      main_source: 'rtsp://10.1.1.1/main',
      sub_source: 'rtsp://10.1.1.1/sub',
      tag_ids: [tag.id, tag.id],
    });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([...ROW].sort());
    expect(r.body).toMatchObject({
      org_id: x.a.orgId,
      node_id: nodeId,
      name: 'Gate',
      status: 'unavailable',
      tag_ids: [tag.id],
      sub_source: 'rtsp://10.1.1.1/sub',
      profiles: [
        { kind: 'MAIN', stream: `${r.body.id}_main`, source_url: 'rtsp://10.1.1.1/main' },
        { kind: 'SUB', stream: `${r.body.id}_sub`, source_url: 'rtsp://10.1.1.1/sub' },
      ],
    });
    const a = await lastAudit(x.root, 'camera.create', r.body.id);
    expect(a).toMatchObject({ org_id: x.a.orgId, node_id: nodeId, object_name: 'Gate' });
    const one = await x.a.admin.get(`/api/v1/cameras/${r.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(r.body);
    const noSub = await x.a.admin.post('/api/v1/cameras', {
      name: 'Yard',
      node_id: nodeId,
      main_source: 'testsrc://smpte',
      sub_source: null,
    });
    expect(noSub.status).toBe(201);
    expect(noSub.body.profiles).toEqual([
      { kind: 'MAIN', stream: `${noSub.body.id}_main`, source_url: 'testsrc://smpte' },
    ]);
  });

  // file: is refused since issue 10, finding 8 (an administrator would have the node read its host's files).
  it('accepts the source schemes rtsp(s), rtmp(s), http(s), testsrc; rejects others (file too) with bad_source_url', async () => {
    for (const s of [
      'rtsp://h/x',
      'rtsps://h/x',
      'rtmp://h/live',
      'rtmps://h/live',
      'http://h/x.m3u8',
      'https://h/x',
      'testsrc://ball',
    ]) {
      expect((await x.a.admin.post('/api/v1/cameras', { name: 's', node_id: nodeId, main_source: s })).status, s).toBe(
        201,
      );
    }
    for (const s of ['ftp://h/x', 'javascript:alert(1)', 'nonsense', 'rtsp:///nohost', '', 'file:///srv/demo.mp4']) {
      const r = await x.a.admin.post('/api/v1/cameras', { name: 's', node_id: nodeId, main_source: s });
      expect(r.status, s).toBe(400);
      expect(r.body).toEqual({ error: 'bad_source_url' });
    }
    expect(
      (
        await x.a.admin.post('/api/v1/cameras', {
          name: 's',
          node_id: nodeId,
          main_source: 'rtsp://h/1',
          sub_source: 'gopher://h',
        })
      ).body,
    ).toEqual({ error: 'bad_source_url' });
    expect((await x.a.admin.post('/api/v1/cameras', { name: 's', node_id: nodeId })).body).toEqual({
      error: 'bad_source_url',
    });
  });

  it('validates node, tags, name and unknown fields', async () => {
    const base = { name: 'c', node_id: nodeId, main_source: 'rtsp://h/1' };
    expect((await x.a.admin.post('/api/v1/cameras', { ...base, node_id: randomId() })).body).toEqual({
      error: 'unknown_node',
    });
    expect((await x.a.admin.post('/api/v1/cameras', { ...base, node_id: 'zzz' })).body).toEqual({
      error: 'unknown_node',
    });
    const foreignTag = (await x.b.admin.post('/api/v1/tags', { name: unique('bt') })).body;
    expect((await x.a.admin.post('/api/v1/cameras', { ...base, tag_ids: [foreignTag.id] })).body).toEqual({
      error: 'unknown_tag',
    });
    expect((await x.a.admin.post('/api/v1/cameras', { ...base, tag_ids: ['nope'] })).body).toEqual({
      error: 'unknown_tag',
    });
    expect((await x.a.admin.post('/api/v1/cameras', { ...base, name: '' })).body).toEqual({ error: 'bad_name' });
    expect((await x.a.admin.post('/api/v1/cameras', { ...base, status: 'live' })).body).toEqual({
      error: 'unknown_field',
    });
    expect((await x.root.post('/api/v1/cameras', { ...base, org_id: randomId() })).body).toEqual({
      error: 'unknown_org',
    });
  });

  it('masks a password in source URLs; sending the masked URL back keeps the stored one', async () => {
    const r = await x.a.admin.post('/api/v1/cameras', {
      name: 'pw',
      node_id: nodeId,
      main_source: 'rtsp://admin:s3cr3t@10.0.0.9:554/stream1',
    });
    expect(r.status).toBe(201);
    expect(r.text).not.toContain('s3cr3t');
    expect(r.body.main_source).toBe('rtsp://admin:***@10.0.0.9:554/stream1');
    const back = await x.a.admin.patch(`/api/v1/cameras/${r.body.id}`, {
      main_source: r.body.main_source,
      name: 'pw2',
    });
    expect(back.status).toBe(200);
    const stored = await t.db.database.db
      .selectFrom('cameras')
      .select('main_source')
      .where('id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    expect(stored.main_source).toBe('rtsp://admin:s3cr3t@10.0.0.9:554/stream1');
    const audit = await x.root.get(`/api/v1/audit?object_id=${r.body.id}`);
    expect(audit.text).not.toContain('s3cr3t');
  });

  it('patches name, node, sources and tags; audited camera.update; unchanged writes nothing', async () => {
    const [t1, t2] = [
      (await x.a.admin.post('/api/v1/tags', { name: unique('t') })).body,
      (await x.a.admin.post('/api/v1/tags', { name: unique('t') })).body,
    ];
    const c = (
      await x.a.admin.post('/api/v1/cameras', {
        name: 'p',
        node_id: nodeId,
        main_source: 'rtsp://h/1',
        tag_ids: [t1.id],
      })
    ).body;
    const r = await x.a.admin.patch(`/api/v1/cameras/${c.id}`, {
      name: 'p2',
      node_id: node2,
      sub_source: 'rtsp://h/2',
      tag_ids: [t2.id],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'p2', node_id: node2, sub_source: 'rtsp://h/2', tag_ids: [t2.id] });
    expect(r.body.profiles).toHaveLength(2);
    const a = await lastAudit(x.root, 'camera.update', c.id);
    const one = await x.root.get(`/api/v1/audit/${a.id}?occurred_at=${encodeURIComponent(a.occurred_at)}`);
    expect(one.body.params.changed.sort()).toEqual(['name', 'node_id', 'sub_source', 'tag_ids']);
    const cleared = await x.a.admin.patch(`/api/v1/cameras/${c.id}`, { sub_source: null, tag_ids: [] });
    expect(cleared.body).toMatchObject({ sub_source: null, tag_ids: [] });
    expect(cleared.body.profiles).toHaveLength(1);
    const before = (await x.root.get(`/api/v1/audit?action=camera.update&object_id=${c.id}`)).body.rows.length;
    expect((await x.a.admin.patch(`/api/v1/cameras/${c.id}`, { name: 'p2' })).status).toBe(200);
    expect((await x.root.get(`/api/v1/audit?action=camera.update&object_id=${c.id}`)).body.rows.length).toBe(before);
    expect((await x.a.admin.patch(`/api/v1/cameras/${c.id}`, { org_id: x.a.orgId })).body).toEqual({
      error: 'unknown_field',
    });
    expect((await x.a.admin.patch(`/api/v1/cameras/${c.id}`, { node_id: randomId() })).body).toEqual({
      error: 'unknown_node',
    });
  });

  it('max_cameras: 409 max_cameras_reached', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('cams'), max_cameras: 1 })).body;
    expect(
      (await x.root.post('/api/v1/cameras', { name: 'a', node_id: nodeId, org_id: org.id, main_source: 'rtsp://h/1' }))
        .status,
    ).toBe(201);
    const r = await x.root.post('/api/v1/cameras', {
      name: 'b',
      node_id: nodeId,
      org_id: org.id,
      main_source: 'rtsp://h/1',
    });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: 'max_cameras_reached' });
  });

  it('deletes, audited camera.delete', async () => {
    const c = (await x.a.admin.post('/api/v1/cameras', { name: 'd', node_id: nodeId, main_source: 'rtsp://h/1' })).body;
    const d = await x.a.admin.del(`/api/v1/cameras/${c.id}`);
    expect(d.body).toEqual({ id: c.id, deleted: true });
    expect((await lastAudit(x.root, 'camera.delete', c.id)).org_id).toBe(x.a.orgId);
    expect((await x.a.admin.get(`/api/v1/cameras/${c.id}`)).text).toBe(NOT_FOUND);
  });

  it('cross-organisation: every route answers 404 for a foreign camera, cross_org for a named foreign organisation', async () => {
    const cb = (await x.b.admin.post('/api/v1/cameras', { name: 'b', node_id: nodeId, main_source: 'rtsp://h/b' }))
      .body;
    const unknown = (await x.a.admin.get(`/api/v1/cameras/${randomId()}`)).text;
    expect(unknown).toBe(NOT_FOUND);
    for (const c of [x.a.admin, x.a.operator]) {
      const r = await c.get(`/api/v1/cameras/${cb.id}`);
      expect(r.status).toBe(404);
      expect(r.text).toBe(unknown);
    }
    for (const r of [
      await x.a.admin.patch(`/api/v1/cameras/${cb.id}`, { name: 'x' }),
      await x.a.admin.del(`/api/v1/cameras/${cb.id}`),
      await x.a.admin.get('/api/v1/cameras/not-a-uuid'),
    ]) {
      expect(r.status).toBe(404);
      expect(r.text).toBe(unknown);
    }
    expect(
      (
        await x.a.admin.post('/api/v1/cameras', {
          name: 'x',
          node_id: nodeId,
          main_source: 'rtsp://h/1',
          org_id: x.b.orgId,
        })
      ).body,
    ).toEqual({ error: 'cross_org' });
    for (const c of [x.a.admin, x.a.operator]) {
      const r = await c.get(`/api/v1/cameras?org=${x.b.orgId}`);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: 'cross_org' });
    }
    const list = await x.a.admin.get('/api/v1/cameras');
    expect(list.body.rows.every((c: any) => c.org_id === x.a.orgId)).toBe(true);
    const rootB = await x.root.get(`/api/v1/cameras?org=${x.b.orgId}`);
    expect(rootB.body.rows.map((c: any) => c.id)).toEqual([cb.id]);
    expect((await x.root.get(`/api/v1/cameras/${cb.id}`)).status).toBe(200);
  });

  it('an operator sees only granted cameras, directly or through a tag; cannot write', async () => {
    const tag = (await x.a.admin.post('/api/v1/tags', { name: unique('vis') })).body;
    const direct = (
      await x.a.admin.post('/api/v1/cameras', { name: 'direct', node_id: nodeId, main_source: 'rtsp://h/d' })
    ).body;
    const viaTag = (
      await x.a.admin.post('/api/v1/cameras', {
        name: 'tagged',
        node_id: nodeId,
        main_source: 'rtsp://h/t',
        tag_ids: [tag.id],
      })
    ).body;
    const hidden = (
      await x.a.admin.post('/api/v1/cameras', { name: 'hidden', node_id: nodeId, main_source: 'rtsp://h/h' })
    ).body;
    expect((await x.a.operator.get('/api/v1/cameras')).body).toEqual({ rows: [], next: null });
    expect(
      (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [direct.id], tag_ids: [tag.id] }))
        .status,
    ).toBe(200);
    const seen = await x.a.operator.get('/api/v1/cameras');
    expect(seen.body.rows.map((c: any) => c.id).sort()).toEqual([direct.id, viaTag.id].sort());
    expect((await x.a.operator.get(`/api/v1/cameras/${viaTag.id}`)).status).toBe(200);
    expect((await x.a.operator.get(`/api/v1/cameras/${hidden.id}`)).text).toBe(NOT_FOUND);
    // the tag leaves the camera: the right it gave goes with it
    await x.a.admin.patch(`/api/v1/cameras/${viaTag.id}`, { tag_ids: [] });
    expect((await x.a.operator.get(`/api/v1/cameras/${viaTag.id}`)).text).toBe(NOT_FOUND);
    for (const [m, url] of [
      ['POST', '/api/v1/cameras'],
      ['PATCH', `/api/v1/cameras/${direct.id}`],
      ['DELETE', `/api/v1/cameras/${direct.id}`],
    ] as const) {
      const r = await x.a.operator.req(m, url, m === 'DELETE' ? undefined : { name: 'x' });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: 'forbidden' });
    }
    expect((await x.anon.get('/api/v1/cameras')).status).toBe(401);
    expect((await x.anon.get(`/api/v1/cameras/${direct.id}`)).status).toBe(401);
  });

  it('pages by id with after and limit', async () => {
    const all = (await x.a.admin.get('/api/v1/cameras')).body.rows.map((c: any) => c.id);
    expect(all.length).toBeGreaterThan(3);
    const p1 = await x.a.admin.get('/api/v1/cameras?limit=3');
    expect(p1.body.rows.map((c: any) => c.id)).toEqual(all.slice(0, 3));
    expect(p1.body.next).toBe(all[2]);
    const rest = await x.a.admin.get(`/api/v1/cameras?after=${p1.body.next}`);
    expect(rest.body.rows.map((c: any) => c.id)).toEqual(all.slice(3));
    expect((await x.a.admin.get('/api/v1/cameras?limit=abc')).body).toEqual({ error: 'bad_limit' });
  });
});
