import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { SseReader } from '../sse-client.js';
import { tenants, unique, type Tenants, cameraWorld } from '../inventory.helpers.js';

/**
 * Camera, tag and grant changes reach open event streams at once (issue 11): the rights notice
 * is sent with each change, so an operator's stream does not wait for its view to age (5 s).
 */
let t: TestPlane;
let x: Tenants;
let base: string;
let world: Awaited<ReturnType<typeof cameraWorld>>;
let mod: Client;
// Well under the 5 s age after which a view is re-read anyway: only the notice can make it.
const AT_ONCE_MS = 2000;

beforeAll(async () => {
  t = await startPlane({
    config: { live: { globalCapacity: 64, perPrincipal: 32, heartbeatMs: 200, ringSize: 50, lagBytes: 1 << 20 } },
  });
  base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  x = await tenants(t);
  world = await cameraWorld(t, x);
  mod = await world.moduleToken(x.a.admin);
});
afterAll(async () => {
  await t?.close();
});

const open = (c: Client) => SseReader.open(`${base}/api/v1/events/stream`, { authorization: `Bearer ${c.token}` });
async function send(cameraId: string): Promise<string> {
  const r = await mod.post('/api/v1/events', {
    events: [{ occurred_at: new Date().toISOString(), detector: 'd', camera_id: cameraId }],
  });
  expect(r.status, r.text).toBe(200);
  return r.body.results[0].id as string;
}

describe('rights notices', () => {
  it("an operator's open stream sees a newly granted camera, a camera created or re-tagged into a granted tag, at once", async () => {
    const tag = (await x.a.admin.post('/api/v1/tags', { name: unique('t') })).body.id as string;
    const granted = await world.camera(x.a.admin);
    const other = await world.camera(x.a.admin);
    expect(
      (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [], tag_ids: [tag] })).status,
    ).toBe(200);
    const op = await open(x.a.operator);
    try {
      await op.until((r) => r.comments.length > 0 || r.events.length > 0, AT_ONCE_MS).catch(() => {});
      // A camera created with the granted tag.
      const created = await world.camera(x.a.admin, [tag]);
      const e1 = await send(created);
      await op.until((r) => r.events.some((e) => e.data.id === e1), AT_ONCE_MS);
      // A camera given the granted tag.
      expect((await x.a.admin.patch(`/api/v1/cameras/${other}`, { tag_ids: [tag] })).status).toBe(200);
      const e2 = await send(other);
      await op.until((r) => r.events.some((e) => e.data.id === e2), AT_ONCE_MS);
      // A camera granted directly.
      expect(
        (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [granted], tag_ids: [tag] }))
          .status,
      ).toBe(200);
      const e3 = await send(granted);
      await op.until((r) => r.events.some((e) => e.data.id === e3), AT_ONCE_MS);
      // The tag deleted: its cameras go at once; the directly granted one stays.
      expect((await x.a.admin.del(`/api/v1/tags/${tag}`)).status).toBe(200);
      const gone = await send(created);
      const e4 = await send(granted);
      await op.until((r) => r.events.some((e) => e.data.id === e4), AT_ONCE_MS);
      expect(op.events.map((e) => e.data.id)).not.toContain(gone);
    } finally {
      op.close();
    }
  });
});
