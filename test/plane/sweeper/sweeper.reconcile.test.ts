import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sweeperWorld, config } from './sweeper.world.js';
import { unique } from '../inventory.helpers.js';
import { Sweeper } from '../../../src/plane/sweeper/sweeper.service.js';
import type { SweepReport } from '../../../src/plane/sweeper/sweep-report.js';
import { NodeClient } from '../../../src/plane/nodes/node-client.js';

const w = sweeperWorld();
const { node, sweep, status } = w;
const DISK = { name: 'disk1', total_bytes: 1000, avail_bytes: 500, write_iops: 2, identity_healthy: true };
const SECRET = 'cam-pass-canary-9f1e';
/** Camera writes reach the node after the reply: wait for them. */
const sent = () => w.t.plane.services.cameras.provisioned();

async function writableNode() {
  const n = await node();
  n.fake.acceptWrites = true;
  n.fake.storages = [DISK];
  return n;
}
const puts = (n: Awaited<ReturnType<typeof writableNode>>) => n.fake.requests.filter((r) => r.method === 'PUT');
const deletes = (n: Awaited<ReturnType<typeof writableNode>>) =>
  n.fake.requests.filter((r) => r.method === 'DELETE').map((r) => r.path);

describe('cameras on their nodes', () => {
  it('a camera write puts <id>_main and <id>_sub on its node at once, recording on the first storage', async () => {
    const n = await writableNode();
    const main = `rtsp://admin:${SECRET}@10.0.0.7/main`;
    const r = await w.x.a.admin.post('/api/v1/cameras', {
      name: unique('cam'),
      node_id: n.id,
      main_source: main,
      sub_source: 'rtsp://10.0.0.7/sub',
      recording: { retention: '7d' },
    });
    expect(r.status, r.text).toBe(201);
    await sent();
    expect(r.body).toMatchObject({ status: 'unavailable', recording: { retention: '7d' } });
    expect(JSON.stringify(r.body)).not.toContain(SECRET);
    const id = r.body.id as string;
    const body = (name: string) => puts(n).find((p) => p.path === `/api/v1/streams/${name}`)?.body;
    expect(body(`${id}_main`)).toEqual({ input: main, dvr: { storage: 'disk1', retention: '7d' }, on_demand: false });
    expect(body(`${id}_sub`)).toEqual({ input: 'rtsp://10.0.0.7/sub', dvr: null, on_demand: false });
    await sweep();
    expect(await status(w.x.a.admin, id)).toBe('live');

    // Steady: the node lists the password as ***; the comparison uses the same mask, nothing is re-sent.
    const before = puts(n).length;
    await sweep();
    await sweep();
    expect(puts(n).length).toBe(before);

    // Recording off, sub removed: the main stream is replaced, the sub deleted.
    const p = await w.x.a.admin.patch(`/api/v1/cameras/${id}`, { recording: null, sub_source: null });
    expect(p.status, p.text).toBe(200);
    await sent();
    expect(n.fake.specs.get(`${id}_main`)?.dvr).toBeNull();
    expect(n.fake.streams.has(`${id}_sub`)).toBe(false);

    // Deleted: both streams go.
    expect((await w.x.a.admin.del(`/api/v1/cameras/${id}`)).status).toBe(200);
    await sent();
    expect(n.fake.streams.has(`${id}_main`)).toBe(false);
    expect(deletes(n)).toContain(`/api/v1/streams/${id}_main`);
  });

  it('a camera moved to another node: its stream leaves the old node and is put on the new one', async () => {
    const a = await writableNode();
    const b = await writableNode();
    const r = await w.x.a.admin.post('/api/v1/cameras', {
      name: unique('cam'),
      node_id: a.id,
      main_source: 'testsrc://',
    });
    await sent();
    expect(a.fake.streams.has(`${r.body.id}_main`)).toBe(true);
    expect((await w.x.a.admin.patch(`/api/v1/cameras/${r.body.id}`, { node_id: b.id })).status).toBe(200);
    await sent();
    expect(a.fake.streams.has(`${r.body.id}_main`)).toBe(false);
    expect(b.fake.streams.has(`${r.body.id}_main`)).toBe(true);
  });

  it('rejects a retention outside the node grammar (400 bad_recording)', async () => {
    const n = await writableNode();
    for (const retention of ['7', '0d', '7w', '1.5h', '12345678d']) {
      const r = await w.x.a.admin.post('/api/v1/cameras', {
        name: unique('cam'),
        node_id: n.id,
        main_source: 'testsrc://',
        recording: { retention },
      });
      expect(r.status, retention).toBe(400);
      expect(r.body.error).toBe('bad_recording');
    }
  });

  it('an unreachable node: the camera write succeeds, the camera stays unavailable, the sweep provisions it later', async () => {
    const n = await writableNode();
    n.fake.mode = 'error';
    const r = await w.x.a.admin.post('/api/v1/cameras', {
      name: unique('cam'),
      node_id: n.id,
      main_source: 'testsrc://',
    });
    expect(r.status, r.text).toBe(201);
    await sent();
    await sweep();
    expect(await status(w.x.a.admin, r.body.id)).toBe('unavailable');
    n.fake.mode = 'up';
    await sweep();
    expect(n.fake.streams.get(`${r.body.id}_main`)).toBe('live');
    await sweep();
    expect(await status(w.x.a.admin, r.body.id)).toBe('live');
  });

  it('the reconcile restores streams deleted or edited by hand, deletes foreign camera streams, leaves other streams alone', async () => {
    const n = await writableNode();
    const r = await w.x.a.admin.post('/api/v1/cameras', {
      name: unique('cam'),
      node_id: n.id,
      main_source: 'testsrc://',
      recording: { retention: '12h' },
    });
    const id = r.body.id as string;
    await sent();
    await sweep();
    n.fake.streams.delete(`${id}_main`);
    n.fake.specs.delete(`${id}_main`);
    const ghost = `${randomUUID()}_main`;
    n.fake.stream(ghost.slice(0, 36), 'live');
    n.fake.streams.set('lobby', 'live');
    n.fake.specs.set(`${id}_sub`, { input: 'testsrc://', dvr: null, on_demand: false });
    n.fake.streams.set(`${id}_sub`, 'live');
    await sweep();
    expect(n.fake.specs.get(`${id}_main`)).toEqual({
      input: 'testsrc://',
      dvr: { storage: 'disk1', retention: '12h' },
      on_demand: false,
    });
    expect(n.fake.streams.has(ghost)).toBe(false);
    expect(n.fake.streams.has(`${id}_sub`)).toBe(false);
    expect(n.fake.streams.get('lobby')).toBe('live');
    // Edited by hand (a restore from backup): put back as the inventory says.
    n.fake.specs.set(`${id}_main`, { input: 'testsrc://', dvr: null, on_demand: true });
    await sweep();
    expect(n.fake.specs.get(`${id}_main`)).toEqual({
      input: 'testsrc://',
      dvr: { storage: 'disk1', retention: '12h' },
      on_demand: false,
    });
  });
});

describe('the sweep report', () => {
  it('carries each polled node with its telemetry, storages, licence and error words', async () => {
    const up = await writableNode();
    up.fake.license = { state: 'grace' };
    const bad = await node([], 'not-the-node-token-000000');
    const reports: SweepReport[] = [];
    const s = w.t.plane.services;
    const own = new Sweeper(
      w.db(),
      w.clock,
      config.sweeper!,
      s.nodes,
      s.cameras,
      s.users,
      s.events.system,
      { warn: () => {} },
      {
        publish: async (r) => {
          reports.push(r);
        },
      },
      new NodeClient(),
    );
    // The world's own sweeper holds the lease: this one waits until it runs out.
    w.clock.advance(4 * config.sweeper!.intervalMs);
    expect((await own.sweep()).polled).toBeGreaterThan(0);
    const r = reports.at(-1)!;
    expect(r.sampled_ms).toBe(w.clock.now());
    expect(r.nodes_total).toBeGreaterThanOrEqual(r.polls.length);
    const a = r.polls.find((p) => p.node_id === up.id)!;
    expect(a).toMatchObject({
      reachable: true,
      attempted_ms: w.clock.now(),
      last_seen_ms: w.clock.now(),
      errors: [],
      license: 'grace',
      storage_telemetry: [DISK],
      system_telemetry: {
        cpus: 2,
        proc_cpu_cores: 0.1,
        host_cpu_busy_pct: 5,
        mem_total_mb: 2048,
        mem_available_mb: 1024,
        rss_mb: 80,
      },
    });
    expect(r.polls.find((p) => p.node_id === bad.id)).toMatchObject({
      reachable: false,
      errors: ['http 401'],
      system_telemetry: null,
      license: null,
      last_seen_ms: null,
    });
    await own.release();
  });
});
