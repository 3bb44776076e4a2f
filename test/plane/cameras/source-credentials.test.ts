import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';

// Issue 25, item 5: a camera password given as a query parameter is masked like `user:pass@`
// in every reply (the operator's view too), the audit list and its CSV export.
const CANARY = 'CamQueryCanary3b9';
const NAMES = ['password', 'pwd', 'pass', 'passwd', 'auth', 'token'];
const query = NAMES.map((n, i) => `${n}=${CANARY}${i}`).join('&');
const MAIN = `rtsp://10.0.0.5:554/live?user=admin&${query}`;
const SUB = `http://10.0.0.5/video.cgi?channel=2&pass=${CANARY}s`;

let t: TestPlane;
let x: Tenants;
let cameraId: string;
beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  const nodeId = (
    await x.root.post('/api/v1/nodes', {
      name: unique('n'),
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    })
  ).body.id;
  const r = await x.a.admin.post('/api/v1/cameras', {
    name: unique('cam'),
    node_id: nodeId,
    main_source: MAIN,
    sub_source: SUB,
  });
  expect(r.status, r.text).toBe(201);
  expect(r.text).not.toContain(CANARY);
  cameraId = r.body.id;
  expect(
    (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cameraId], tag_ids: [] })).status,
  ).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

describe('camera credentials in query strings', () => {
  it('the operator and the administrator see them as ***, the rest of the URL as written', async () => {
    for (const c of [x.a.operator, x.a.admin]) {
      const one = await c.get(`/api/v1/cameras/${cameraId}`);
      expect(one.status, one.text).toBe(200);
      expect(one.text).not.toContain(CANARY);
      expect(one.body.main_source).toBe(
        `rtsp://10.0.0.5:554/live?user=admin&${NAMES.map((n) => `${n}=***`).join('&')}`,
      );
      expect(one.body.sub_source).toBe('http://10.0.0.5/video.cgi?channel=2&pass=***');
      const list = await c.get('/api/v1/cameras');
      expect(list.text).not.toContain(CANARY);
    }
  });

  it('a masked source sent back unchanged keeps the stored one; the audit never holds it', async () => {
    const shown = (await x.a.admin.get(`/api/v1/cameras/${cameraId}`)).body;
    const r = await x.a.admin.patch(`/api/v1/cameras/${cameraId}`, {
      name: unique('renamed'),
      main_source: shown.main_source,
      sub_source: shown.sub_source,
    });
    expect(r.status, r.text).toBe(200);
    const stored = await t.db.database.db
      .selectFrom('cameras')
      .select(['main_source', 'sub_source'])
      .where('id', '=', cameraId)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ main_source: MAIN, sub_source: SUB });
    // A real change of the password is written, and audited masked.
    const next = MAIN.replace(`pwd=${CANARY}1`, `pwd=${CANARY}new`);
    expect((await x.a.admin.patch(`/api/v1/cameras/${cameraId}`, { main_source: next })).status).toBe(200);

    const audit = await x.root.get(`/api/v1/audit?object_id=${cameraId}&limit=50`);
    expect(audit.status).toBe(200);
    expect(audit.body.rows.length).toBeGreaterThanOrEqual(3);
    expect(audit.text).not.toContain(CANARY);
    expect(audit.text).toContain('pwd=***');
    const csv = await x.root.get(`/api/v1/audit/export.csv?object_id=${cameraId}`);
    expect(csv.status, csv.text).toBe(200);
    expect(csv.text).toContain('camera.create');
    expect(csv.text).not.toContain(CANARY);
  });
});
