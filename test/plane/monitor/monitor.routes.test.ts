import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { SseReader } from '../sse-client.js';
import { seedOrg, seedUser } from '../fixtures.js';
import { eventually, nodeIds, poll, report, unreachable } from './monitor.helpers.js';

let t: TestPlane;
let base: string;
let root: Client, admin: Client, operator: Client;
const ROUTES = [
  '/api/v1/monitor/fleet/summary',
  '/api/v1/monitor/fleet/summary/stream',
  '/api/v1/monitor/nodes',
  '/api/v1/monitor/plane',
  '/api/v1/monitor/plane/stream',
];
const hdr = (c: Client, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${c.token}`, ...extra });
const open = (path: string, c: Client = root, extra: Record<string, string> = {}) =>
  SseReader.open(`${base}${path}`, hdr(c, extra));

beforeAll(async () => {
  t = await startPlane({
    config: { live: { globalCapacity: 1024, perPrincipal: 32, heartbeatMs: 150, ringSize: 100, lagBytes: 1 << 20 } },
  });
  base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  const db = t.db.database.db;
  const org = await seedOrg(db, 'mon-org');
  admin = await login(t.plane.app, await seedUser(db, org, 'admin', 'mon-admin'));
  operator = await login(t.plane.app, await seedUser(db, org, 'user', 'mon-user'));
  root = await login(t.plane.app);
});
afterAll(async () => {
  await t?.close();
});

describe('rights', () => {
  it.each(ROUTES)('%s: 401 without a session, 403 for an administrator and an operator', async (path) => {
    expect((await new Client(t.plane.app).get(path)).body).toEqual({ error: 'unauthorized' });
    expect((await new Client(t.plane.app).get(path)).status).toBe(401);
    for (const c of [admin, operator]) {
      const r = await c.get(path);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: 'forbidden' });
    }
  });

  it('other methods on the paths answer 405', async () => {
    expect((await root.post('/api/v1/monitor/fleet/summary')).status).toBe(405);
  });
});

describe('fleet summary', () => {
  it('before the first sweep: seq 0, every counter 0, sampled_at the epoch', async () => {
    const r = await root.get('/api/v1/monitor/fleet/summary');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.body).toEqual({
      seq: 0,
      sampled_at: '1970-01-01T00:00:00.000Z',
      nodes_total: 0,
      nodes_reachable: 0,
      stream_samples_stale: 0,
      streams_total: 0,
      streams_live: 0,
      streams_degraded: 0,
      streams_failing: 0,
      cameras_total: 0,
      cameras_live: 0,
      cameras_unavailable: 0,
      cameras_degraded: 0,
      cameras_failing: 0,
      nodes_unlicensed: 0,
      nodes_grace: 0,
    });
  });

  it('streams a frame per sweep with id = seq; the current one replayed once when newer than the header', async () => {
    const [a] = nodeIds(1);
    const s0 = await open('/api/v1/monitor/fleet/summary/stream');
    await t.plane.services.fleet.publish(report([poll(a!)]));
    const seq = t.plane.services.fleet.summary.seq;
    await s0.until((r) => r.events.length >= 1);
    expect(s0.events[0]!.id).toBe(String(seq));
    expect(s0.events[0]!.data.seq).toBe(seq);
    expect(s0.events[0]!.replay).toBe(false);

    // Header equal to the current seq: nothing replayed, the next sweep comes live.
    const same = await open('/api/v1/monitor/fleet/summary/stream', root, { 'last-event-id': String(seq) });
    // Header below: the current summary once, marked as a replay.
    const older = await open('/api/v1/monitor/fleet/summary/stream', root, { 'last-event-id': String(seq - 1) });
    // Above the current number: reset to 0 and replay.
    const future = await open('/api/v1/monitor/fleet/summary/stream', root, { 'last-event-id': String(seq + 1000) });
    // The query parameter is not a resume point of this stream.
    const byQuery = await open(`/api/v1/monitor/fleet/summary/stream?last_event_id=${seq}`);
    // An unparseable header counts as 0.
    const garbled = await open('/api/v1/monitor/fleet/summary/stream', root, { 'last-event-id': 'not-a-number' });
    for (const s of [older, future, byQuery, garbled]) await s.until((r) => r.events.length >= 1);
    for (const s of [older, future, byQuery, garbled])
      expect(s.events[0]!).toMatchObject({ id: String(seq), replay: true });
    garbled.close();

    await t.plane.services.fleet.publish(report([poll(a!)]));
    for (const s of [s0, same, older, future, byQuery])
      await s.until((r) => r.events.some((e) => e.data.seq === seq + 1));
    expect(same.events.map((e) => e.data.seq)).toEqual([seq + 1]);
    expect(older.events.map((e) => e.data.seq)).toEqual([seq, seq + 1]);
    expect(s0.events.map((e) => e.data.seq)).toEqual([seq, seq + 1]);
    expect(s0.raw).not.toMatch(/^event:/m);
    // The heartbeat: a comment line holding only a colon.
    await s0.until((r) => /(^|\n):\n\n/.test(r.raw));
    for (const s of [s0, same, older, future, byQuery]) s.close();
  });

  it('computes every field: reachability, stale samples with their last known total, licence counters, cameras', async () => {
    const [a, b, c, d] = nodeIds(4);
    await t.plane.services.fleet.publish(
      report([
        poll(a!, {}, { total: 5, live: 3, degraded: 1, failing: 1 }),
        poll(b!, {}, { total: 4, live: 4, degraded: 0, failing: 0 }),
      ]),
    );
    // b answers without stream counts: stale, its last known 4 kept in the total only.
    await t.plane.services.fleet.publish(
      report(
        [
          poll(a!, { license: 'grace' }, { total: 5, live: 3, degraded: 1, failing: 1 }),
          poll(b!, { system_telemetry: null, errors: ['bad_body'], license: 'unlicensed' }),
          poll(c!, { system_telemetry: null, license: 'unlicensed' }),
          unreachable(d!),
        ],
        { nodes_total: 6, sampled_ms: Date.UTC(2026, 1, 1) },
      ),
    );
    const r = await root.get('/api/v1/monitor/fleet/summary');
    expect(r.body).toMatchObject({
      sampled_at: '2026-02-01T00:00:00.000Z',
      nodes_total: 6,
      nodes_reachable: 3,
      stream_samples_stale: 2,
      streams_total: 9,
      streams_live: 3,
      streams_degraded: 1,
      streams_failing: 1,
      nodes_unlicensed: 2,
      nodes_grace: 1,
    });
    // b away for a sweep (it adds no streams), then stale again: its last known total is still 4.
    await t.plane.services.fleet.publish(report([unreachable(b!)]));
    expect((await root.get('/api/v1/monitor/fleet/summary')).body).toMatchObject({
      nodes_reachable: 0,
      streams_total: 0,
      stream_samples_stale: 0,
    });
    await t.plane.services.fleet.publish(report([poll(b!, { system_telemetry: null })]));
    expect((await root.get('/api/v1/monitor/fleet/summary')).body).toMatchObject({
      nodes_reachable: 1,
      streams_total: 4,
      streams_live: 0,
      stream_samples_stale: 1,
    });
  });

  it('counts the camera inventory once per camera, by status, read when a sweep is published', async () => {
    const db = t.db.database.db;
    const nodeId = (
      await root.post('/api/v1/nodes', {
        name: 'mon-node',
        url: 'http://127.0.0.1:9',
        api_token: 'node-write-token-123456',
      })
    ).body.id;
    const statuses = ['live', 'live', 'degraded', 'failing', 'unavailable'] as const;
    const ids: string[] = [];
    for (const [i] of statuses.entries()) {
      const r = await admin.post('/api/v1/cameras', {
        name: `cam-${i}`,
        node_id: nodeId,
        main_source: 'rtsp://10.0.0.1/a',
        sub_source: 'rtsp://10.0.0.1/b',
      });
      expect(r.status, r.text).toBe(201);
      ids.push(r.body.id);
    }
    for (const [i, s] of statuses.entries())
      await db.updateTable('cameras').set({ status: s }).where('id', '=', ids[i]!).execute();
    const before = (await root.get('/api/v1/monitor/fleet/summary')).body;
    // Not per request: the counts change only with the next published sweep.
    expect(before.cameras_total).toBe(0);
    await t.plane.services.fleet.publish(report([poll(nodeId)]));
    const r = (await root.get('/api/v1/monitor/fleet/summary')).body;
    expect(r).toMatchObject({
      seq: before.seq + 1,
      cameras_total: 5,
      cameras_live: 2,
      cameras_degraded: 1,
      cameras_failing: 1,
      cameras_unavailable: 1,
    });
  });
});

describe('node telemetry stream', () => {
  it("replays each node's current frame above the resume point in number order, then live", async () => {
    const ids = nodeIds(3);
    await t.plane.services.fleet.publish(report(ids.map((id) => poll(id))));
    const head = t.plane.services.fleet.frameHead;
    const s = await open('/api/v1/monitor/nodes');
    await s.until((r) => r.events.length >= 3);
    expect(s.events.map((e) => e.data.node_id)).toEqual(ids);
    expect(s.events.map((e) => Number(e.id))).toEqual([head - 2, head - 1, head]);
    expect(s.events.every((e) => e.replay && Number(e.id) === e.data.seq)).toBe(true);
    const f = s.events[0]!.data;
    expect(Object.keys(f)).toEqual([
      'seq',
      'node_id',
      'attempted_at',
      'last_seen_at',
      'reachable',
      'system_telemetry',
      'storage_telemetry',
      'errors',
    ]);
    expect(Object.keys(f.system_telemetry)).toEqual([
      'cpus',
      'proc_cpu_cores',
      'host_cpu_busy_pct',
      'mem_total_mb',
      'mem_available_mb',
      'rss_mb',
      'stream_counts',
    ]);
    expect(f.system_telemetry.stream_counts).toEqual({ total: 3, live: 2, degraded: 1, failing: 0 });
    expect(f.storage_telemetry).toEqual([
      { name: 'disk0', total_bytes: 1000, avail_bytes: 400, write_iops: 7, identity_healthy: true },
    ]);
    expect(f).toMatchObject({
      attempted_at: '2026-01-15T12:00:00.000Z',
      last_seen_at: '2026-01-15T12:00:00.000Z',
      reachable: true,
      errors: [],
    });

    // Resume above the first two: only the third; then the next sweep live, unmarked.
    const resumed = await open('/api/v1/monitor/nodes', root, { 'last-event-id': String(head - 1) });
    await resumed.until((r) => r.events.length >= 1);
    expect(resumed.events.map((e) => e.data.node_id)).toEqual([ids[2]]);
    await t.plane.services.fleet.publish(report([poll(ids[1]!), unreachable(ids[0]!, 5)]));
    await resumed.until((r) => r.events.length >= 3);
    expect(resumed.events.slice(1).map((e) => [e.data.node_id, e.data.seq, e.replay])).toEqual([
      [ids[1], head + 1, false],
      [ids[0], head + 2, false],
    ]);
    expect(resumed.events[2]!.data).toMatchObject({
      reachable: false,
      system_telemetry: null,
      storage_telemetry: null,
      errors: ['timeout'],
      last_seen_at: '1970-01-01T00:00:00.005Z',
    });
    for (const x of [s, resumed]) x.close();
  });

  it('an unparseable resume point counts as 0, one above the head resets to 0; a node not polled any more leaves', async () => {
    const ids = nodeIds(2);
    await t.plane.services.fleet.publish(report(ids.map((id) => poll(id))));
    for (const h of ['abc', '-1', '1.5', String(t.plane.services.fleet.frameHead + 10)]) {
      const s = await open('/api/v1/monitor/nodes', root, { 'last-event-id': h });
      await s.until((r) => r.events.length >= 2);
      expect(
        s.events.map((e) => e.data.node_id),
        h,
      ).toEqual(ids);
      s.close();
    }
    await t.plane.services.fleet.publish(report([poll(ids[1]!)]));
    const s = await open('/api/v1/monitor/nodes');
    await s.until((r) => r.events.length >= 1);
    // Nothing more than the snapshot: the node gone from the sweep is gone from the replay.
    await new Promise((r) => setImmediate(r));
    expect(s.events.map((e) => e.data.node_id)).toEqual([ids[1]]);
    s.close();
  });
});

describe('process samples', () => {
  it('GET /api/v1/monitor/plane answers the envelope with every sample field', async () => {
    await t.plane.services.sampler.sample();
    const r = await root.get('/api/v1/monitor/plane');
    expect(r.status).toBe(200);
    expect(r.body.cadence_secs).toBe(2);
    expect(r.body.retention_points).toBe(900);
    const s = r.body.samples.at(-1);
    expect(Object.keys(s)).toEqual([
      'seq',
      'sampled_at_ms',
      'uptime_s',
      'rss_mb',
      'proc_cpu_cores',
      'cpus',
      'host_cpu_busy_pct',
      'mem_total_mb',
      'mem_available_mb',
      'open_fds',
      'db_pool_max',
      'db_pool_size',
      'db_pool_idle',
      'db_pool_in_use',
    ]);
    expect(s.rss_mb).toBeGreaterThan(10);
    expect(s.open_fds).toBeGreaterThan(3);
    expect(s.cpus).toBeGreaterThanOrEqual(1);
    expect(s.mem_total_mb).toBeGreaterThanOrEqual(s.mem_available_mb);
    expect(s.db_pool_max).toBeGreaterThanOrEqual(1);
    expect(s.db_pool_size).toBe(s.db_pool_idle + s.db_pool_in_use);
  });

  it('the stream replays what is newer than the resume point (header over query), then one frame per sample', async () => {
    const sampler = t.plane.services.sampler;
    while (sampler.last < 4) await sampler.sample();
    const last = sampler.last;
    const byQuery = await open(`/api/v1/monitor/plane/stream?last_event_id=${last - 2}`);
    const byHeader = await open(`/api/v1/monitor/plane/stream?last_event_id=${last - 3}`, root, {
      'last-event-id': String(last - 1),
    });
    const future = await open(`/api/v1/monitor/plane/stream?last_event_id=${last + 50}`);
    const badHeader = await open('/api/v1/monitor/plane/stream', root, { 'last-event-id': 'x' });
    await byQuery.until((r) => r.events.length >= 2);
    await byHeader.until((r) => r.events.length >= 1);
    await future.until((r) => r.events.length >= last);
    await badHeader.until((r) => r.events.length >= last);
    // The sampler's own job may add a live frame meanwhile (a loaded machine): the replay is the start.
    expect(byQuery.events.slice(0, 2).map((e) => Number(e.id))).toEqual([last - 1, last]);
    expect(byHeader.events.slice(0, 1).map((e) => Number(e.id))).toEqual([last]);
    expect(future.events[0]!.data.seq).toBe(1);
    expect(byQuery.events.slice(0, 2).every((e) => e.replay)).toBe(true);
    await sampler.sample();
    await byHeader.until((r) => r.events.length >= 2);
    expect(byHeader.events[1]).toMatchObject({ id: String(last + 1), replay: false });
    for (const s of [byQuery, byHeader, future, badHeader]) s.close();
  });

  it('a malformed last_event_id parameter is 400 bad_last_event_id', async () => {
    const r = await root.get('/api/v1/monitor/plane/stream?last_event_id=abc');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'bad_last_event_id' });
  });
});

describe('capacity', () => {
  it('the 33rd stream of a user is 429 live_stream_capacity (principal) with Retry-After: 2', async () => {
    const held: SseReader[] = [];
    for (let i = 0; i < 32; i++) held.push(await open(ROUTES[1 + (i % 2) * 1]!));
    await eventually(() => t.plane.services.streams.count >= 32);
    for (const path of ROUTES.filter((p) => p.endsWith('stream') || p.endsWith('nodes'))) {
      const r = await open(path);
      expect(r.status).toBe(429);
      expect(r.body).toEqual({ error: 'live_stream_capacity', scope: 'principal', retry_after: 2 });
      expect(r.headers!.get('retry-after')).toBe('2');
    }
    for (const s of held) s.close();
    await eventually(() => t.plane.services.streams.count === 0);
  });
});
