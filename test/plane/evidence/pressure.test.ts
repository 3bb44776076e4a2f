import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { ManualClock } from '../../../src/common/clock.js';
import { DEFAULT_PLANE_TOML, parsePlaneConfig, type PlaneConfig } from '../../../src/plane/config/config.js';
import { startPlane, ROOT, type TestPlane } from '../harness.js';
import { login, type Client } from '../client.js';
import { cameraWorld, tenants } from '../inventory.helpers.js';

const DAY = 86_400_000;

/** A plane with a real plane.toml whose [evidence_storage] has the given keys (max_bytes makes used_percent a pure count of bytes). */
async function planeWith(evidence: string, clock: ManualClock) {
  const dir = await mkdtemp(join(tmpdir(), 'argus-pressure-'));
  const file = join(dir, 'plane.toml');
  const text = DEFAULT_PLANE_TOML.replace(
    /\[evidence_storage\][^[]*/,
    `[evidence_storage]\nbackend = "local"\ndir = "${join(dir, 'evidence')}"\n${evidence}\n\n`,
  );
  await writeFile(file, text);
  const parsed = parsePlaneConfig({ text, configFile: file, env: {} });
  const config: Partial<PlaneConfig> = {
    configFile: file,
    dataDir: dir,
    evidence: parsed.evidence,
    evidencePressure: parsed.evidencePressure,
  };
  const t = await startPlane({ config, clock });
  // A superadmin, and a module token and a camera of an organisation to upload and send with.
  const root = await login(t.plane.app, ROOT);
  const x = await tenants(t);
  const world = await cameraWorld(t, x);
  const cam = await world.camera(x.a.admin);
  const mod = await world.moduleToken(x.a.admin);
  return {
    t,
    root,
    mod,
    cam,
    close: async () => {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function upload(mod: Client, size: number, type = 'application/octet-stream') {
  return mod.req('POST', '/api/v1/attachments', Buffer.alloc(size, 5), { 'content-type': type });
}

describe('watermarks of the evidence storage: 507 at critical, stats (document 4 §10)', () => {
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  let p: Awaited<ReturnType<typeof planeWith>>;
  let t: TestPlane, root: Client, mod: Client, cam: string;
  beforeAll(async () => {
    p = await planeWith(
      'low_watermark_percent = 30\nhigh_watermark_percent = 60\ncritical_watermark_percent = 90\nmax_bytes = 10000',
      clock,
    );
    ({ t, root, mod, cam } = p);
  });
  afterAll(async () => {
    await p?.close();
  });
  const stats = async () => (await root.get('/api/v1/settings/plane')).body.evidence_storage.stats;

  it('stats.operations counts the storage calls of this process', async () => {
    const before = await stats();
    expect(before.operations).toEqual({
      in_flight: 0,
      total_ops: 0,
      errors: 0,
      ops_per_second: 0,
      bytes_per_second: 0,
      average_latency_ms: 0,
      max_latency_ms: 0,
    });
    expect([before.failed_jobs, before.pressure_dropped_attachments]).toEqual([0, 0]);
    clock.advance(1000);
    expect((await upload(mod, 3000)).status).toBe(201);
    const after = await stats();
    expect(after.operations).toMatchObject({ in_flight: 0, total_ops: 1, errors: 0 });
    expect(after.operations.ops_per_second).toBeGreaterThan(0);
    expect(after.operations.bytes_per_second).toBeGreaterThan(0);
    // A minute later the rates are 0 again; the totals stay.
    clock.advance(61_000);
    expect((await stats()).operations).toMatchObject({ total_ops: 1, ops_per_second: 0, bytes_per_second: 0 });
  });

  it('failed_jobs: a named job, the preview job and a cleanup job whose last run failed', async () => {
    await t.plane.services.jobs.runOnce({
      name: 'test.failing',
      everyMs: 1000,
      budgetMs: 1000,
      run: async () => {
        throw new Error('boom');
      },
    });
    expect((await stats()).failed_jobs).toBe(1);
    // An image that cannot be decoded: the preview build fails.
    expect((await upload(mod, 100, 'image/jpeg')).status).toBe(201);
    await t.plane.services.previews.builder.idle();
    await expect.poll(async () => (await stats()).failed_jobs).toBe(2);
    await sql`insert into cleanup_jobs (id, kind, org_id, state, spec, preview, created_by, created_at, last_error)
      values (gen_random_uuid(), 'events', null, 'queued', '{}'::jsonb, '{}'::jsonb, null, now(), 'disk on fire')`.execute(
      t.db.database.db,
    );
    expect((await stats()).failed_jobs).toBe(3);
    // The named job runs well again: it no longer counts.
    await t.plane.services.jobs.runOnce({ name: 'test.failing', everyMs: 1000, budgetMs: 1000, run: async () => {} });
    expect((await stats()).failed_jobs).toBe(2);
  });

  it('at the critical watermark an upload is 507 evidence_storage_full and counted; events are still accepted', async () => {
    expect((await upload(mod, 6000)).status).toBe(201); // 9,100 of 10,000 bytes: 91%
    clock.advance(2000);
    const refused = await upload(mod, 10);
    expect([refused.status, refused.body]).toEqual([507, { error: 'evidence_storage_full' }]);
    expect((await upload(mod, 10)).status).toBe(507);
    const ev = await mod.post('/api/v1/events', {
      events: [{ detector: 'door', occurred_at: new Date(clock.now()).toISOString(), camera_id: cam }],
    });
    expect(ev.body.results[0].id, ev.text).toBeDefined();
    const s = await stats();
    expect(s).toMatchObject({
      pressure_dropped_attachments: 2,
      used_percent: 91,
      capacity_bytes: 10_000,
      available_bytes: 900,
    });
  });
});

describe('volume_retention = "oldest_purge_day" (document 4 §10)', () => {
  // Today at noon (UTC): the tests count events by day and move the clock by minutes, so a clock
  // taken at 23:5x crossed midnight in between (CI at 5f5eaf3 failed so, at 00:0x).
  const clock = new ManualClock(new Date().setUTCHours(12, 0, 0, 0));
  let p: Awaited<ReturnType<typeof planeWith>>;
  let t: TestPlane, root: Client, mod: Client, cam: string;
  beforeAll(async () => {
    p = await planeWith(
      'volume_retention = "oldest_purge_day"\nlow_watermark_percent = 30\nhigh_watermark_percent = 60\ncritical_watermark_percent = 95\nmax_bytes = 10000',
      clock,
    );
    ({ t, root, mod, cam } = p);
  });
  afterAll(async () => {
    await p?.close();
  });

  /** An event `daysAgo` with an attachment of `size` bytes; returns the event id and the attachment ref. */
  async function eventOn(daysAgo: number, size: number, severity = 2) {
    const ref = (await upload(mod, size)).body.ref as string;
    const r = await mod.post('/api/v1/events', {
      events: [
        {
          detector: 'door',
          severity,
          occurred_at: new Date(clock.now() - daysAgo * DAY).toISOString(),
          camera_id: cam,
          attachments: [ref],
        },
      ],
    });
    expect(r.body.results[0].id, r.text).toBeDefined();
    return { id: r.body.results[0].id as string, ref };
  }
  const dayOf = (daysAgo: number) => new Date(clock.now() - daysAgo * DAY).toISOString().slice(0, 10);
  const countOn = async (daysAgo: number) => {
    const from = `${dayOf(daysAgo)}T00:00:00Z`;
    const r = await sql<{
      n: string;
    }>`select count(*) as n from events where occurred_at >= ${from}::timestamptz and occurred_at < ${from}::timestamptz + interval '1 day'`.execute(
      t.db.database.db,
    );
    return Number(r.rows[0]!.n);
  };

  it('the effective setting says so', async () => {
    expect((await root.get('/api/v1/settings/plane')).body.evidence_storage.effective.volume_retention).toBe(
      'oldest_purge_day',
    );
  });

  it('below the high watermark nothing goes; at it, whole oldest days go (every severity) until below the low one, each a retention job, audited', async () => {
    const oldest = await eventOn(3, 2000);
    await eventOn(3, 10, 0); // a debug event of the same day goes with it
    await eventOn(2, 2000);
    await eventOn(1, 1500);
    expect(await t.plane.services.events.retention.run(clock.now() + 20_000)).toEqual([]); // 55.1%: below high
    await eventOn(1, 500); // 60.1%
    expect(await t.plane.services.events.retention.run(clock.now() + 20_000)).toEqual([dayOf(3), dayOf(2)]);
    expect([await countOn(3), await countOn(2), await countOn(1)]).toEqual([0, 0, 2]);
    const jobs = await sql<{
      kind: string;
      state: string;
      deleted_events: string;
    }>`select kind, state, deleted_events from cleanup_jobs where kind = 'retention' order by created_at`.execute(
      t.db.database.db,
    );
    expect(jobs.rows.map((j) => [j.kind, j.state, Number(j.deleted_events)])).toEqual([
      ['retention', 'finished', 2],
      ['retention', 'finished', 1],
    ]);
    const records = (await root.get('/api/v1/audit?action=data.retention_purge&limit=10')).body.rows;
    expect(records).toHaveLength(2);
    expect(records.map((r: { object_name: string }) => r.object_name).sort()).toEqual([dayOf(3), dayOf(2)]);
    const audit = records.find((r: { object_name: string }) => r.object_name === dayOf(2));
    expect(audit).toMatchObject({ object_type: 'cleanup_job', object_name: dayOf(2), actor_name: 'system' });
    expect(audit.params).toMatchObject({
      day: dayOf(2),
      low_watermark_percent: 30,
      high_watermark_percent: 60,
      preview: { events: 1, attachments: 1, attachment_bytes: 2000 },
    });
    // The evidence went with its events: a download is 410, the usage is given back.
    expect((await root.get(`/api/v1/attachments/${oldest.ref}`)).status).toBe(410);
    expect((await root.get('/api/v1/settings/plane')).body.evidence_storage.stats.logical_bytes).toBe(2000);
  });

  it('between the watermarks an episode goes on only while recent; later it waits for the high watermark again', async () => {
    await eventOn(1, 2000); // 40%
    clock.advance(11 * 60_000);
    expect(await t.plane.services.events.retention.run(clock.now() + 20_000)).toEqual([]);
    expect(await countOn(1)).toBe(3);
  });
});
