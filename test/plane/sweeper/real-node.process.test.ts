import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, startPlane, type TestPlane } from '../harness.js';
import { login, type Client } from '../client.js';
import { unique } from '../inventory.helpers.js';
import { freePort, startNode, tempDir, type RunningNode } from '../../node/helpers/node-process.js';
import { MEDIA_ENV, TESTSRC, stopAndReap, waitFor } from '../../node/media/media-helpers.js';

/**
 * The plane's sweeper against the real argus-node executable (not the fake of sweeper.test.ts):
 * the two programs agree on GET /api/v1/system, GET /api/v1/streams, the write token and the
 * stream names of a camera.
 */
const WRITE = 'node-write-token-0123456789';
const SWEEP_MS = 5000;

let t: TestPlane;
let root: Client;
let clock: ManualClock;
let node: RunningNode | undefined;

beforeAll(async () => {
  clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  t = await startPlane({ clock, config: { sweeper: { enabled: false, intervalMs: SWEEP_MS, timeoutMs: 2000, concurrency: 4 } } });
  root = await login(t.plane.app);
});
afterAll(async () => {
  await stopAndReap(node);
  await t?.close();
});

async function sweep() {
  clock.advance(SWEEP_MS);
  return t.plane.services.sweeper.sweep();
}

it('reads a real node: its stream makes the camera live; stopped, the node is unreachable (one open event, camera unavailable); back, the event closes', async () => {
  const port = await freePort();
  const nodeRow = await root.post('/api/v1/nodes', { name: unique('real'), url: `http://127.0.0.1:${port}`, api_token: WRITE });
  expect(nodeRow.status, nodeRow.text).toBe(201);
  const cam = await root.post('/api/v1/cameras', { name: unique('cam'), node_id: nodeRow.body.id, main_source: TESTSRC });
  expect(cam.status, cam.text).toBe(201);
  const status = async () => (await root.get(`/api/v1/cameras/${cam.body.id}`)).body.status as string;
  // The camera's source is the stream the node's configuration carries: the sweep's reconcile finds nothing to change.
  expect(await status()).toBe('unavailable');

  const dir = await tempDir();
  const config = `auth {\n    admin_password "real-node-admin-password";\n    api_write_token ${WRITE};\n}\nstream ${cam.body.id}_main { input ${TESTSRC}; }\n`;
  node = await startNode(config, { dir, port, env: MEDIA_ENV });
  await waitFor('camera live', async () => { await sweep(); return (await status()) === 'live'; });

  const unreachable = async () => { const r = await root.get('/api/v1/events?detector=system.node_unreachable'); expect(r.status, r.text).toBe(200); return r.body.rows as Array<{ node_id: string; ended_at: string | null }>; };
  expect(await unreachable()).toEqual([]);

  await stopAndReap(node);
  await sweep();
  expect(await status()).toBe('unavailable');
  const open = (await unreachable()).filter((e) => e.node_id === nodeRow.body.id);
  expect(open).toHaveLength(1);
  expect(open[0]!.ended_at).toBeNull();
  await sweep();
  expect((await unreachable()).filter((e) => e.node_id === nodeRow.body.id)).toHaveLength(1);

  node = await startNode(null, { dir, port, env: MEDIA_ENV });
  await waitFor('node event closed', async () => {
    await sweep();
    const rows = (await unreachable()).filter((e) => e.node_id === nodeRow.body.id);
    return rows.length === 1 && rows[0]!.ended_at !== null;
  });
  await waitFor('camera live again', async () => { await sweep(); return (await status()) === 'live'; });
});
