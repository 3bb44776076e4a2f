import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { cameraWorld, tenants, type Tenants } from '../inventory.helpers.js';
import { StreamRights } from '../../../src/plane/events/stream/stream.rights.js';

// A process's own event frames reach its streams at once, while its rights notices come back
// through LISTEN, after them on a busy machine. Rights views made here never listen (no bus): a
// rights change this process committed must still be seen by the next frame's check, through
// the count of rights notices the process queued, never only once LISTEN brings the notice back.

describe('stream rights: a change made by this process, before its notice comes back', () => {
  let t: TestPlane;
  let x: Tenants;
  let world: Awaited<ReturnType<typeof cameraWorld>>;
  beforeAll(async () => {
    t = await startPlane();
    x = await tenants(t);
    world = await cameraWorld(t, x);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a grant or a camera tag changed here is in the view the next frame is checked against', async () => {
    const [first, second] = [await world.camera(x.a.admin), await world.camera(x.a.admin)];
    const grant = (camera_ids: string[], tag_ids: string[] = []) =>
      x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids, tag_ids });
    expect((await grant([first])).status).toBe(200);
    const rights = new StreamRights(t.db.database.db);
    const { view, release } = await rights.acquire({ kind: 'granted', orgId: x.a.orgId, userId: x.a.operatorId });
    const seen = async () => {
      if (!view.current()) await view.load();
      return [...view.current()!].sort();
    };
    try {
      expect(await seen()).toEqual([first]);
      expect((await grant([second])).status).toBe(200);
      expect(await seen()).toEqual([second]);
      // An organisation-wide change: a camera given a tag the operator is granted.
      const tag = (await x.a.admin.post('/api/v1/tags', { name: `t-${Date.now()}` })).body.id as string;
      expect((await grant([second], [tag])).status).toBe(200);
      expect(await seen()).toEqual([second]);
      expect((await x.a.admin.patch(`/api/v1/cameras/${first}`, { tag_ids: [tag] })).status).toBe(200);
      expect(await seen()).toEqual([first, second].sort());
    } finally {
      release();
    }
  });
});
