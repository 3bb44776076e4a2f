import { expect, it } from 'vitest';
import { unique } from '../inventory.helpers.js';
import { freePort, tempDir } from '../../node/helpers/node-process.js';
import { TESTSRC, waitFor } from '../../node/media/media-helpers.js';
import { realNodeWorld } from './real-node.fixture.js';

/**
 * Cameras provisioned on a real argus-node (issue 11): the camera write puts its stream on the
 * node, the camera plays, a stream deleted by hand on the node comes back at the next sweep, and
 * a deleted camera's stream goes.
 */
const WRITE = 'node-write-token-0123456789';
const VIEWER = 'viewer-secret-0123456789abcdef';

const world = realNodeWorld(3000);
const { sweep } = world;

it('provisions a testsrc camera, plays it, restores a stream deleted by hand, removes the stream of a deleted camera', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = `auth {\n    admin_password "real-node-admin-password";\n    api_write_token ${WRITE};\n}\nauth_backend { hs256 ${VIEWER}; }\n`;
  await world.startNode(config, { dir: await tempDir(), port });
  const n = await world.root.post('/api/v1/nodes', {
    name: unique('real'),
    url: base,
    api_token: WRITE,
    auth_backend_secret: VIEWER,
  });
  expect(n.status, n.text).toBe(201);
  const nodeStreams = async () => {
    const r = await fetch(`${base}/api/v1/streams`, { headers: { authorization: `Bearer ${WRITE}` } });
    expect(r.status).toBe(200);
    return ((await r.json()) as { rows: Array<{ name: string; input: string }> }).rows;
  };

  const cam = await world.root.post('/api/v1/cameras', {
    name: unique('cam'),
    node_id: n.body.id,
    main_source: TESTSRC,
  });
  expect(cam.status, cam.text).toBe(201);
  const main = `${cam.body.id}_main`;
  await world.t.plane.services.cameras.provisioned();
  // Put on the node by the camera write itself (after its reply), before any sweep.
  expect((await nodeStreams()).map((s) => s.name)).toContain(main);
  const status = async () => (await world.root.get(`/api/v1/cameras/${cam.body.id}`)).body.status as string;
  await waitFor('camera live', async () => {
    await sweep();
    return (await status()) === 'live';
  });

  const play = await world.root.post(`/api/v1/cameras/${cam.body.id}/play`, {});
  expect(play.status, play.text).toBe(200);
  expect(play.body.url).toBe(`${base}/${main}/index.m3u8`);
  await waitFor('playlist', async () => {
    const r = await fetch(`${play.body.url}?token=${encodeURIComponent(play.body.token)}`);
    const text = await r.text();
    return r.status === 200 && text.startsWith('#EXTM3U');
  });
  expect((await fetch(play.body.url)).status).not.toBe(200);

  // Deleted by hand on the node: the next sweep puts it back.
  const del = await fetch(`${base}/api/v1/streams/${main}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${WRITE}` },
  });
  expect(del.status).toBe(200);
  expect((await nodeStreams()).map((s) => s.name)).not.toContain(main);
  await sweep();
  expect((await nodeStreams()).find((s) => s.name === main)?.input).toBe(TESTSRC);
  await waitFor('camera live again', async () => {
    await sweep();
    return (await status()) === 'live';
  });

  expect((await world.root.del(`/api/v1/cameras/${cam.body.id}`)).status).toBe(200);
  await world.t.plane.services.cameras.provisioned();
  expect((await nodeStreams()).map((s) => s.name)).not.toContain(main);
});
