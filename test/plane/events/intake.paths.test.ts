import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';

// Intake has two write paths: one statement (no ext_id, attachment or coalescing) and the full
// transaction. They share the one camera rule (the event log's SQL of an organisation's cameras,
// and intake's unknownCamera); this file holds them equal on the same items.
let t: TestPlane;
let x: Tenants;
let camA: string, camB: string, nodeId: string;
let mod: Client;

const at = () => new Date().toISOString();
const db = () => t.db.database.db;

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  nodeId = (
    await x.root.post('/api/v1/nodes', {
      name: unique('n'),
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    })
  ).body.id;
  const cam = async (admin: Client) =>
    (await admin.post('/api/v1/cameras', { name: unique('cam'), node_id: nodeId, main_source: 'rtsp://10.0.0.1/a' }))
      .body.id;
  camA = await cam(x.a.admin);
  camB = await cam(x.b.admin);
  const r = await x.a.admin.post('/api/v1/module-tokens', { name: unique('mod'), rate_limit: 100_000 });
  mod = new Client(t.plane.app, r.body.secret);
  // The token's first use is recorded (the full write); later batches without ext_id take the one-statement path.
  expect((await mod.post('/api/v1/events', { events: [{ detector: 'warm.up', occurred_at: at() }] })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

describe('the two intake write paths', () => {
  it('apply the same camera rule: own camera kept with its node, foreign, unknown and upper-case ids alike', async () => {
    const cameras = [camA, camB, null, randomUUID(), camA.toUpperCase()];
    const items = (ext: boolean) =>
      cameras.map((camera_id, i) => ({
        detector: 'paths.cam',
        occurred_at: at(),
        subject_ref: `s${i}`,
        ...(camera_id === null ? {} : { camera_id }),
        ...(ext ? { ext_id: unique('e') } : {}),
      }));
    const alone = await mod.post('/api/v1/events', { events: items(false) });
    const full = await mod.post('/api/v1/events', { events: items(true) });
    expect(alone.status, alone.text).toBe(200);
    expect(full.status, full.text).toBe(200);
    const shape = (results: Array<{ index: number; id?: string; error?: string }>) =>
      results.map((r) => ('id' in r ? 'id' : r.error));
    expect(shape(alone.body.results)).toEqual(shape(full.body.results));
    expect(shape(alone.body.results)).toEqual(['id', 'unknown_camera', 'id', 'unknown_camera', 'id']);
    const stored = async (results: Array<{ id?: string }>) => {
      const ids = results.flatMap((r) => r.id ?? []);
      const rows = await db()
        .selectFrom('events')
        .select(['id', 'camera_id', 'node_id', 'org_id'])
        .where('id', 'in', ids)
        .execute();
      return ids.map((id) => {
        const r = rows.find((x) => x.id === id)!;
        return { camera_id: r.camera_id, node_id: r.node_id, org_id: r.org_id };
      });
    };
    expect(await stored(alone.body.results)).toEqual(await stored(full.body.results));
    expect(await stored(alone.body.results)).toEqual([
      { camera_id: camA, node_id: nodeId, org_id: x.a.orgId },
      { camera_id: null, node_id: null, org_id: x.a.orgId },
      { camera_id: camA, node_id: nodeId, org_id: x.a.orgId },
    ]);
  });
});
