import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { ManualClock } from '../../../src/common/clock.js';
import { FleetMonitor } from '../../../src/plane/monitor/fleet.service.js';
import { ProcessSampler } from '../../../src/plane/monitor/process-sampler.js';
import { cpuTimes, type HostReadings } from '../../../src/common/host-load.js';
import { freshDatabase, startPlane, type TestDb, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { SseReader } from '../sse-client.js';
import { seedOrg, seedUser } from '../fixtures.js';
import { controllableResponse, eventually, nodeIds, poll, report } from './monitor.helpers.js';

function fakeHost(): HostReadings & { cpu: number; stat: string } {
  const h = {
    cpu: 0,
    stat: 'cpu  100 0 100 800 0 0 0 0 0 0',
    cpuMicros: () => h.cpu,
    rssBytes: () => 64 * 1024 * 1024,
    cpus: () => 8,
    procStat: async () => h.stat,
    memInfo: async () => 'MemTotal:       8192000 kB\nMemFree:  1 kB\nMemAvailable:   4096000 kB\n',
    openFds: async () => 17,
    uptimeSecs: () => 10,
  };
  return h;
}

describe('process sampler', () => {
  it('keeps 900 samples at most, numbered from 1, with CPU figures from differences', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 15));
    const host = fakeHost();
    const sampler = new ProcessSampler(clock, () => ({ max: 10, size: 3, idle: 2, in_use: 1 }), host);
    clock.advance(2000);
    const first = await sampler.sample();
    expect(first).toEqual({
      seq: 1,
      sampled_at_ms: Date.UTC(2026, 0, 15) + 2000,
      uptime_s: 12,
      rss_mb: 64,
      proc_cpu_cores: 0,
      cpus: 8,
      host_cpu_busy_pct: 20,
      mem_total_mb: 8000,
      mem_available_mb: 4000,
      open_fds: 17,
      db_pool_max: 10,
      db_pool_size: 3,
      db_pool_idle: 2,
      db_pool_in_use: 1,
    });
    // 2 s later: 0.84 s of CPU time is 0.42 cores; the host was busy 300 of 400 jiffies.
    clock.advance(2000);
    host.cpu = 840_000;
    host.stat = 'cpu  300 0 200 900 0 0 0 0 0 0';
    const second = await sampler.sample();
    expect(second.proc_cpu_cores).toBe(0.42);
    expect(second.host_cpu_busy_pct).toBe(75);
    expect(second.uptime_s).toBe(14);
    for (let i = 0; i < 905; i++) {
      clock.advance(2000);
      await sampler.sample();
    }
    const env = JSON.parse(sampler.envelope());
    expect(env.cadence_secs).toBe(2);
    expect(env.retention_points).toBe(900);
    expect(env.samples).toHaveLength(900);
    expect(env.samples[0].seq).toBe(8);
    expect(env.samples[899].seq).toBe(907);
    expect(env.samples[899].sampled_at_ms - env.samples[0].sampled_at_ms).toBe(899 * 2000);
    // A resume point older than the ring: everything it holds.
    expect(sampler.after(3)).toHaveLength(900);
    expect(sampler.after(905).map((s) => s.seq)).toEqual([906, 907]);
  });

  it('reads the cpu line of /proc/stat (idle and iowait are not busy) and refuses anything else', () => {
    expect(cpuTimes('cpu  10 1 9 70 10 0 0 0 0 0')).toEqual({ busy: 20, total: 100 });
    expect(cpuTimes('cpu0 1 2 3 4')).toBeNull();
    expect(cpuTimes(null)).toBeNull();
  });

  it('runs as the named job monitor.process_sample every 2 s', () => {
    const sampler = new ProcessSampler(new ManualClock(), () => ({ max: 1, size: 1, idle: 1, in_use: 0 }), fakeHost());
    expect(sampler.job()).toMatchObject({ name: 'monitor.process_sample', everyMs: 2000 });
  });
});

describe('a lagging node-telemetry subscriber', () => {
  let t: TestPlane;
  beforeAll(async () => {
    t = await startPlane({
      config: { live: { globalCapacity: 10, perPrincipal: 5, heartbeatMs: 60_000, ringSize: 100, lagBytes: 2048 } },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('gets nothing while its socket is full, then a rebuilt snapshot of every node above what it was sent: no silent gap', async () => {
    const ids = nodeIds(8);
    const fleet = t.plane.services.fleet;
    await fleet.publish(report(ids.map((id) => poll(id))));
    const c = await login(t.plane.app);
    const principal = await t.plane.services.auth.authenticate(c.token!, { ip: '127.0.0.1', userAgent: 'test' });
    const res = controllableResponse();
    t.plane.services.monitor.nodesStream(res.req({ 'last-event-id': String(fleet.frameHead) }), res.reply, principal);
    // Three sweeps of 8 frames (~4 KiB each) while the client reads nothing: past the 2 KiB bound after the first.
    await fleet.publish(report(ids.map((id) => poll(id))));
    const afterFirst = fleet.frameHead;
    await fleet.publish(report(ids.map((id) => poll(id))));
    await fleet.publish(report(ids.slice(0, 5).map((id) => poll(id))));
    expect(res.raw.writableLength).toBeLessThan(2048 + 8 * 1024);
    res.release();
    await eventually(() => res.raw.writableLength === 0);
    await fleet.publish(report(ids.slice(0, 5).map((id) => poll(id))));
    await eventually(() => res.text().includes(': snapshot-rebuilt'));
    const text = res.text();
    const [live, rebuilt] = text.split(': snapshot-rebuilt\n\n');
    const idsOf = (s: string) => [...s.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    // The first sweep live, whole; then the current frame of each node still polled, in number order.
    expect(idsOf(live!)).toEqual(Array.from({ length: 8 }, (_, i) => afterFirst - 7 + i));
    const head = fleet.frameHead;
    expect(idsOf(rebuilt!)).toEqual([head - 4, head - 3, head - 2, head - 1, head]);
    expect((rebuilt!.match(/: delivery=replay/g) ?? []).length).toBe(5);
    // Back in step: the next sweep is a plain batch.
    await fleet.publish(report(ids.slice(0, 2).map((id) => poll(id))));
    await eventually(() => idsOf(res.text()).at(-1) === fleet.frameHead);
    expect(res.text().split(': snapshot-rebuilt').length).toBe(2);
    res.raw.destroy();
  });

  it('the 11th stream of the process is 429 live_stream_capacity (global)', async () => {
    const base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
    // Five streams each for two superadmins fill the process; a third one meets the global bound.
    const org = await seedOrg(t.db.database.db, 'cap-org');
    const clients: Client[] = [await login(t.plane.app)];
    for (const name of ['cap-1', 'cap-2'])
      clients.push(await login(t.plane.app, await seedUser(t.db.database.db, org, 'superadmin', name)));
    const held: SseReader[] = [];
    await eventually(() => t.plane.services.streams.count === 0);
    for (let i = 0; i < 10; i++)
      held.push(
        await SseReader.open(`${base}/api/v1/monitor/nodes`, { authorization: `Bearer ${clients[i % 2]!.token}` }),
      );
    const r = await SseReader.open(`${base}/api/v1/monitor/plane/stream`, {
      authorization: `Bearer ${clients[2]!.token}`,
    });
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ error: 'live_stream_capacity', scope: 'global', retry_after: 2 });
    expect(r.headers!.get('retry-after')).toBe('2');
    for (const s of held) s.close();
  });
});

describe('two plane processes on one database', () => {
  let db: TestDb;
  let a: TestPlane, b: TestPlane;
  beforeAll(async () => {
    db = await freshDatabase();
    a = await startPlane({ db });
    b = await startPlane({ db });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('serve the same summary and the same numbered frames; only the sweeping process publishes', async () => {
    const ids = nodeIds(3);
    const baseB = await b.plane.app.listen({ host: '127.0.0.1', port: 0 });
    const rootB = await login(b.plane.app);
    const s = await SseReader.open(`${baseB}/api/v1/monitor/nodes`, { authorization: `Bearer ${rootB.token}` });
    const sum = await SseReader.open(`${baseB}/api/v1/monitor/fleet/summary/stream`, {
      authorization: `Bearer ${rootB.token}`,
    });

    await a.plane.services.fleet.publish(report(ids.map((id) => poll(id))));
    // The next sweep from the other process: it continues the numbering.
    await b.plane.services.fleet.publish(report([poll(ids[0]!), poll(ids[2]!)]));
    await a.plane.services.fleet.publish(report([poll(ids[2]!)], { nodes_total: 1 }));
    await eventually(
      () =>
        b.plane.services.fleet.summary.seq === a.plane.services.fleet.summary.seq &&
        a.plane.services.fleet.summary.seq === 3,
    );
    await eventually(() => a.plane.services.fleet.frameHead === 6);

    const rootA = await login(a.plane.app);
    const ra = await rootA.get('/api/v1/monitor/fleet/summary');
    const rb = await rootB.get('/api/v1/monitor/fleet/summary');
    expect(rb.text).toBe(ra.text);
    expect(ra.body).toMatchObject({ seq: 3, nodes_total: 1 });
    const framesOf = (p: TestPlane) => p.plane.services.fleet.frames.map((f) => f.sse);
    expect(framesOf(b)).toEqual(framesOf(a));
    expect(framesOf(a)).toHaveLength(1);

    // B's subscribers saw every frame once, numbered 1..6 in order, and one summary per sweep.
    await s.until((r) => r.events.length >= 6);
    expect(s.events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(s.events.map((e) => e.data.node_id)).toEqual([...ids, ids[0], ids[2], ids[2]]);
    await sum.until((r) => r.events.length >= 3);
    expect(sum.events.map((e) => e.data.seq)).toEqual([1, 2, 3]);
    s.close();
    sum.close();
  });

  it('a publisher that has not yet loaded the sweeps of another first applies them: every frame reaches its streams once, in order', async () => {
    // Two monitors that hear no NOTIFY: each knows only what it publishes itself.
    const quiet = () =>
      new FleetMonitor(
        db.database.db,
        async () => ({ total: 0, live: 0, unavailable: 0, degraded: 0, failing: 0 }),
        pino({ level: 'silent' }),
      );
    const x = quiet();
    const y = quiet();
    await x.load();
    await y.load();
    const seen: number[] = [];
    y.onChange((c) => seen.push(...c.frames.map((f) => f.seq)));
    const start = a.plane.services.fleet.frameHead;
    const ids = nodeIds(3);
    await x.publish(report(ids.map((id) => poll(id))));
    await y.publish(report([poll(ids[0]!)]));
    expect(seen).toEqual([start + 1, start + 2, start + 3, start + 4]);
    expect(y.summary.seq).toBe(x.summary.seq + 1);
    await eventually(() => a.plane.services.fleet.summary.seq === y.summary.seq);
  });

  it('a process started later loads the stored sweep before it answers', async () => {
    const c = await startPlane({ db });
    try {
      expect(c.plane.services.fleet.summary).toEqual(a.plane.services.fleet.summary);
      expect(c.plane.services.fleet.frames.map((f) => f.sse)).toEqual(a.plane.services.fleet.frames.map((f) => f.sse));
    } finally {
      await c.close();
    }
  });
});

describe('from memory only', () => {
  it('answers the summary, the samples and the streams with the monitor tables gone', async () => {
    const t = await startPlane();
    try {
      const ids = nodeIds(2);
      await t.plane.services.fleet.publish(report(ids.map((id) => poll(id))));
      await t.plane.services.sampler.sample();
      const root = await login(t.plane.app);
      const before = await root.get('/api/v1/monitor/fleet/summary');
      // Whatever a request would read of the database, it could not: the telemetry tables are dropped.
      await t.db.database.db.schema.dropTable('monitor_node_frames').execute();
      await t.db.database.db.schema.dropTable('monitor_fleet').execute();
      const after = await root.get('/api/v1/monitor/fleet/summary');
      expect(after.status).toBe(200);
      expect(after.text).toBe(before.text);
      expect((await root.get('/api/v1/monitor/plane')).body.samples.length).toBeGreaterThanOrEqual(1);
      const base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
      // The query parameter is no resume point of the node stream (header only): full snapshot.
      const s = await SseReader.open(`${base}/api/v1/monitor/nodes?last_event_id=${t.plane.services.fleet.frameHead}`, {
        authorization: `Bearer ${root.token}`,
      });
      await s.until((r) => r.events.length >= 2);
      expect(s.events.map((e) => e.data.node_id)).toEqual(ids);
      s.close();
    } finally {
      await t.close();
    }
  });
});
