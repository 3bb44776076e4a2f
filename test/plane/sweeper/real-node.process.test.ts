import { expect, it } from 'vitest';
import { unique } from '../inventory.helpers.js';
import { freePort, tempDir } from '../../node/helpers/node-process.js';
import { TESTSRC, waitFor } from '../../node/media/media-helpers.js';
import { realNodeWorld } from './real-node.fixture.js';

/**
 * The plane's sweeper against the real argus-node executable (not the fake of sweeper.test.ts):
 * the two programs agree on GET /api/v1/system, GET /api/v1/streams, the write token and the
 * stream names of a camera.
 */
const WRITE = 'node-write-token-0123456789';

const world = realNodeWorld(2000);
const { sweep } = world;

it('reads a real node: its stream makes the camera live; stopped, the node is unreachable (one open event, camera unavailable); back, the event closes', async () => {
  const port = await freePort();
  const nodeRow = await world.root.post('/api/v1/nodes', {
    name: unique('real'),
    url: `http://127.0.0.1:${port}`,
    api_token: WRITE,
  });
  expect(nodeRow.status, nodeRow.text).toBe(201);
  const cam = await world.root.post('/api/v1/cameras', {
    name: unique('cam'),
    node_id: nodeRow.body.id,
    main_source: TESTSRC,
  });
  expect(cam.status, cam.text).toBe(201);
  const status = async () => (await world.root.get(`/api/v1/cameras/${cam.body.id}`)).body.status as string;
  // The camera's source is the stream the node's configuration carries: the sweep's reconcile finds nothing to change.
  expect(await status()).toBe('unavailable');

  const dir = await tempDir();
  const config = `auth {\n    admin_password "real-node-admin-password";\n    api_write_token ${WRITE};\n}\nstream ${cam.body.id}_main { input ${TESTSRC}; }\n`;
  await world.startNode(config, { dir, port });
  await waitFor('camera live', async () => {
    await sweep();
    return (await status()) === 'live';
  });

  const unreachable = async () => {
    const r = await world.root.get('/api/v1/events?detector=system.node_unreachable');
    expect(r.status, r.text).toBe(200);
    return r.body.rows as Array<{ node_id: string; ended_at: string | null }>;
  };
  expect(await unreachable()).toEqual([]);

  await world.stopNode();
  await sweep();
  expect(await status()).toBe('unavailable');
  const open = (await unreachable()).filter((e) => e.node_id === nodeRow.body.id);
  expect(open).toHaveLength(1);
  expect(open[0]!.ended_at).toBeNull();
  await sweep();
  expect((await unreachable()).filter((e) => e.node_id === nodeRow.body.id)).toHaveLength(1);

  await world.startNode(null, { dir, port });
  await waitFor('node event closed', async () => {
    await sweep();
    const rows = (await unreachable()).filter((e) => e.node_id === nodeRow.body.id);
    return rows.length === 1 && rows[0]!.ended_at !== null;
  });
  await waitFor('camera live again', async () => {
    await sweep();
    return (await status()) === 'live';
  });
});
