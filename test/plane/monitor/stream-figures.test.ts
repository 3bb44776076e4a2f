import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { cameraWorld, tenants, type Tenants } from '../inventory.helpers.js';
import { poll, report } from './monitor.helpers.js';

// Issue 22: the Cameras page shows each camera's live state, frame rate and bitrate from the fleet
// telemetry. The sweeper's report carries each node's stream rows; the monitor keeps them beside
// the node frame (0019) and GET /api/v1/cameras/ingest-figures answers them for visible cameras.

let t: TestPlane;
let x: Tenants;
let node: string;
let camA: string, camA2: string, camB: string;

const figures = (name: string, fps: number | null, kbps: number | null, state = 'live') => ({
  name,
  state,
  fps,
  bitrate_kbps: kbps,
  resolution: fps === null ? null : '1920x1080',
  codec: fps === null ? null : 'h264',
});

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  const world = await cameraWorld(t, x);
  node = world.node;
  camA = await world.camera(x.a.admin);
  camA2 = await world.camera(x.a.admin);
  camB = await world.camera(x.b.admin);
});
afterAll(async () => {
  await t?.close();
});

const ask = (c: Tenants['root'], ids: string[]) => c.get(`/api/v1/cameras/ingest-figures?camera_ids=${ids.join(',')}`);

describe('GET /api/v1/cameras/ingest-figures', () => {
  it('before any sweep read the node: no rows', async () => {
    const r = await ask(x.root, [camA]);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ rows: [] });
  });

  it("answers the latest sweep's figures of each camera's main and sub stream", async () => {
    const at = Date.UTC(2026, 10, 26, 12, 0, 0);
    await t.plane.services.fleet.publish(
      report([
        poll(node, {
          attempted_ms: at,
          streams: [
            figures(`${camA}_main`, 25, 2048.5),
            figures(`${camA}_sub`, 10, 300),
            figures(`${camA2}_main`, null, null, 'failing'),
            figures(`${camB}_main`, 15, 900),
          ],
        }),
      ]),
    );
    const r = await ask(x.a.admin, [camA, camA2]);
    expect(r.status, r.text).toBe(200);
    expect(r.body.rows).toEqual(
      [
        {
          camera_id: camA,
          sampled_at: new Date(at).toISOString(),
          main: figures(`${camA}_main`, 25, 2048.5),
          sub: figures(`${camA}_sub`, 10, 300),
        },
        {
          camera_id: camA2,
          sampled_at: new Date(at).toISOString(),
          main: figures(`${camA2}_main`, null, null, 'failing'),
          sub: null,
        },
      ].sort((a, b) => (a.camera_id < b.camera_id ? -1 : 1)),
    );
  });

  it("leaves out cameras the caller may not see: another organisation's, unknown ids, bad ids", async () => {
    const r = await ask(x.a.admin, [camB, '00000000-0000-4000-8000-000000000000', 'not-an-id']);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ rows: [] });
    // The operator of A sees no camera without a grant.
    expect((await ask(x.a.operator, [camA])).body).toEqual({ rows: [] });
    // The superadmin sees both organisations'.
    const all = await ask(x.root, [camA, camB]);
    expect(all.body.rows.map((row: { camera_id: string }) => row.camera_id).sort()).toEqual([camA, camB].sort());
  });

  it('a sweep that could not read the stream list keeps no figures for the node', async () => {
    await t.plane.services.fleet.publish(report([poll(node, { streams: null })]));
    expect((await ask(x.root, [camA])).body).toEqual({ rows: [] });
  });

  it('needs a session, and the ids list', async () => {
    expect((await x.anon.get(`/api/v1/cameras/ingest-figures?camera_ids=${camA}`)).status).toBe(401);
    expect((await x.root.get('/api/v1/cameras/ingest-figures')).status).toBe(400);
  });
});
