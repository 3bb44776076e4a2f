import { afterAll, beforeAll, expect, it } from 'vitest';
import { CANARY, ManualClock, startPlane, type TestPlane } from '../harness.js';
import { login, type Client } from '../client.js';
import { unique } from '../inventory.helpers.js';
import { call, freePort, startNode, tempDir, type RunningNode } from '../../node/helpers/node-process.js';
import { MEDIA_ENV, TESTSRC, stopAndReap, waitFor } from '../../node/media/media-helpers.js';

/**
 * Issue 11 end to end, against the real argus-node executable: a `testsrc://` camera created in
 * the plane is provisioned on its node (recorded), goes `live` in the fleet summary, plays with
 * the plane's viewer token, its viewer shows in GET /api/v1/sessions; the node stops, and the
 * summary's nodes_reachable drops while system.node_unreachable opens.
 */
const WRITE = `fleet-write-${CANARY}-0123456789`;
const SECRET = `fleet-viewer-secret-${CANARY}-0123456789`;
const SWEEP_MS = 5000;

let t: TestPlane;
let root: Client;
let clock: ManualClock;
let node: RunningNode | undefined;
let nodeId: string;
let camId: string;

async function sweep() {
  clock.advance(SWEEP_MS);
  await t.plane.services.sweeper.sweep();
}

const summary = async () => {
  const r = await root.get('/api/v1/monitor/fleet/summary');
  expect(r.status, r.text).toBe(200);
  return r.body as Record<string, number>;
};

beforeAll(async () => {
  clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  t = await startPlane({
    clock,
    config: { sweeper: { enabled: false, intervalMs: SWEEP_MS, timeoutMs: 2000, concurrency: 4 } },
  });
  root = await login(t.plane.app);
  const port = await freePort();
  const dir = await tempDir();
  // The node starts empty: every stream it will hold comes from the plane.
  const config =
    `auth {\n    admin_password "fleet-admin-password";\n    api_write_token ${WRITE};\n}\n` +
    `auth_backend { hs256 ${SECRET}; }\nstorage main ${dir}/rec;\n`;
  node = await startNode(config, { dir, port, env: MEDIA_ENV });
  const n = await root.post('/api/v1/nodes', {
    name: unique('fleet-node'),
    url: node.url,
    api_token: WRITE,
    auth_backend_secret: SECRET,
  });
  expect(n.status, n.text).toBe(201);
  nodeId = n.body.id;
  await sweep();
});
afterAll(async () => {
  await stopAndReap(node);
  await t?.close();
});

it('a testsrc camera created in the plane is provisioned and recorded on its node, and goes live in the fleet summary', async () => {
  const c = await root.post('/api/v1/cameras', {
    name: unique('fleet-cam'),
    node_id: nodeId,
    main_source: TESTSRC,
    recording: { retention: '1d' },
  });
  expect(c.status, c.text).toBe(201);
  camId = c.body.id;
  // The write reaches the node after the reply (docs/fleet-sweep.md).
  await t.plane.services.cameras.provisioned();
  const streams = await call(node!.url, 'GET', '/api/v1/streams', { token: WRITE });
  const main = (streams.json.rows as Array<{ name: string; dvr: unknown }>).find((s) => s.name === `${camId}_main`);
  expect(main).toBeDefined();
  expect(main!.dvr).toEqual({ storage: 'main', retention: '1d' });

  await waitFor(
    'camera live',
    async () => {
      await sweep();
      return (await root.get(`/api/v1/cameras/${camId}`)).body.status === 'live';
    },
    40_000,
    500,
  );
  const s = await summary();
  expect(s).toMatchObject({
    nodes_total: 1,
    nodes_reachable: 1,
    cameras_total: 1,
    cameras_live: 1,
    stream_samples_stale: 0,
  });
  expect(s.streams_live).toBeGreaterThanOrEqual(1);
});

it("it plays with the plane's token, and the viewer is found in GET /api/v1/sessions", async () => {
  const play = await root.post(`/api/v1/cameras/${camId}/play`, { profile: 'MAIN', intent: 'live' });
  expect(play.status, play.text).toBe(200);
  const headers = { 'user-agent': 'fleet-e2e-player/1.0' };
  const entry = await fetch(`${play.body.url}?token=${play.body.token}`, { headers });
  expect(entry.status).toBe(200);
  const variant = (await entry.text()).split('\n').find((l) => l && !l.startsWith('#'))!;
  expect((await fetch(new URL(variant, play.body.url), { headers })).status).toBe(200);
  const row = await waitFor(
    'the viewer in the fleet list',
    async () => {
      const r = await root.get(`/api/v1/sessions?camera_id=${camId}`);
      expect(r.status, r.text).toBe(200);
      return (r.body.items as Array<Record<string, unknown>>).find((i) => i.user_agent === 'fleet-e2e-player/1.0');
    },
    10_000,
  );
  expect(row).toMatchObject({ stream: `${camId}_main`, node_id: nodeId, camera_id: camId, subject_kind: 'user' });
});

it('the node stops: nodes_reachable drops, system.node_unreachable opens, the camera is unavailable', async () => {
  const before = (await summary()).seq!;
  await stopAndReap(node);
  node = undefined;
  await sweep();
  const s = await summary();
  expect(s.seq).toBeGreaterThan(before);
  expect(s).toMatchObject({ nodes_total: 1, nodes_reachable: 0, cameras_live: 0, cameras_unavailable: 1 });
  const ev = await root.get('/api/v1/events?detector=system.node_unreachable');
  expect(ev.status, ev.text).toBe(200);
  const open = (ev.body.rows as Array<{ node_id: string; ended_at: string | null }>).filter(
    (e) => e.node_id === nodeId,
  );
  expect(open).toHaveLength(1);
  expect(open[0]!.ended_at).toBeNull();
  expect(t.logs.text).not.toContain(WRITE);
  expect(t.logs.text).not.toContain(SECRET);
});
