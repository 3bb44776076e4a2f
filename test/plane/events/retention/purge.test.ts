import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlane, type TestPlane } from '../../harness.js';
import { Client } from '../../client.js';
import { SseReader } from '../../sse-client.js';
import { tenants, unique, lastAudit, type Tenants, cameraWorld } from '../../inventory.helpers.js';
import { purgeDayOf } from '../../../../src/plane/events/retention/purge.service.js';
import { sendEvents, uploadAttachment } from '../../fixtures.js';

let t: TestPlane;
let x: Tenants;
let dir: string;
let base: string;
let cam1: string, cam2: string, camB: string;
let modA: Client, modB: Client;
const T0 = Date.now() - 3600_000;
const at = (i: number) => new Date(T0 + i * 1000).toISOString();
const auth = (c: Client) => ({ authorization: `Bearer ${c.token}` });

const send = sendEvents;
const upload = (mod: Client, size: number) => uploadAttachment(mod, size, 7);
const preview = (body: unknown) => x.root.post('/api/v1/events/purge/preview', body);
async function finished(id: string) {
  for (let i = 0; i < 200; i++) {
    const r = await x.root.get(`/api/v1/cleanup-jobs/${id}`);
    expect(r.status, r.text).toBe(200);
    if (r.body.finished_at) return r.body;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error('cleanup job did not finish');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-purge-'));
  t = await startPlane({
    config: {
      evidence: { backend: 'local', dir },
      live: { globalCapacity: 64, perPrincipal: 32, heartbeatMs: 60_000, ringSize: 50, lagBytes: 1 << 20 },
    },
  });
  base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  x = await tenants(t);
  const world = await cameraWorld(t, x);
  const cam = (admin: Client) => world.camera(admin);
  cam1 = await cam(x.a.admin);
  cam2 = await cam(x.a.admin);
  camB = await cam(x.b.admin);
  expect(
    (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] })).status,
  ).toBe(200);
  const tok = (admin: Client) => world.moduleToken(admin, 1_000_000);
  modA = await tok(x.a.admin);
  modB = await tok(x.b.admin);
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('POST /api/v1/events/purge/preview', () => {
  let ids: string[];
  beforeAll(async () => {
    ids = await send(modA, [
      { detector: 'pv.plate', occurred_at: at(0), camera_id: cam1, severity: 'info' },
      { detector: 'pv.plate', occurred_at: at(1), camera_id: cam1, severity: 'debug' },
      { detector: 'pv.motion', occurred_at: at(2), camera_id: cam2, severity: 'warning' },
      { detector: 'pvx', occurred_at: at(3) },
    ]);
    await send(modB, [{ detector: 'pv.plate', occurred_at: at(0), camera_id: camB, severity: 'info' }]);
  });

  it('normalises the spec (defaults, sorted unique ids, as_of now) and counts the selection', async () => {
    const before = Date.now();
    const r = await preview({ detector: 'pv.*', org_id: x.a.orgId });
    expect(r.status, r.text).toBe(200);
    expect(r.body.spec).toEqual({
      event_ids: [],
      org_id: x.a.orgId,
      from: null,
      to: null,
      camera_id: null,
      detector: 'pv.*',
      severity_min: null,
      starred: false,
      category: null,
      as_of: expect.any(String),
    });
    expect(Date.parse(r.body.spec.as_of)).toBeGreaterThanOrEqual(before - 5);
    // debug left out without severity_min
    expect(r.body.preview).toEqual({ events: 2, attachments: 0, attachment_bytes: 0 });
    const all = await preview({ detector: 'pv.*', org_id: x.a.orgId, severity_min: 0 });
    expect(all.body.preview.events).toBe(3);
    const everyOrg = await preview({ detector: 'pv.plate' });
    expect(everyOrg.body.preview.events).toBe(2); // org A info + org B info
    expect((await preview({ detector: 'pv.plate', camera_id: cam1 })).body.preview.events).toBe(1);
    expect(
      (await preview({ detector: 'pv*', category: 'camera', severity_min: 2, org_id: x.a.orgId })).body.preview.events,
    ).toBe(1);
    expect((await preview({ detector: 'pv*', from: at(1), to: at(3), org_id: x.a.orgId })).body.preview.events).toBe(1);
    expect((await preview({ detector: 'pv*', starred: true })).body.preview.events).toBe(0);
  });

  it('explicit ids reach debug rows; ids are sorted and de-duplicated; a future as_of is lowered to now; a past one freezes', async () => {
    const r = await preview({
      event_ids: [ids[1]!.toUpperCase(), ids[0], ids[1]],
      as_of: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(r.body.spec.event_ids).toEqual([ids[0], ids[1]].sort());
    expect(Date.parse(r.body.spec.as_of)).toBeLessThanOrEqual(Date.now());
    expect(r.body.preview.events).toBe(2);
    const past = await preview({ event_ids: ids, as_of: at(1) });
    expect(past.body.preview.events).toBe(2);
  });

  it.each([
    [
      'event_purge_selection_too_large',
      { event_ids: Array.from({ length: 1001 }, (_, i) => `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`) },
    ],
    ['bad_time_range', { from: at(2), to: at(2) }],
    ['bad_time_range', { from: 'yesterday' }],
    ['bad_detector', { detector: 'd'.repeat(257) }],
    ['bad_detector', { detector: '' }],
    ['bad_category', { category: 'other' }],
    ['bad_severity_min', { severity_min: 5 }],
    ['bad_event_ids', { event_ids: ['nope'] }],
    ['bad_as_of', { as_of: 'soon' }],
    ['unknown_field', { whatever: 1 }],
  ] as Array<[string, Record<string, unknown>]>)('400 %s (case %#)', async (code, body) => {
    for (const path of ['/api/v1/events/purge/preview', '/api/v1/events/purge']) {
      const r = await x.root.post(path, body);
      expect([r.status, r.body]).toEqual([400, { error: code }]);
    }
  });

  it('the limits are inclusive: 1000 event ids, a detector of 256 characters', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`);
    const r = await preview({ event_ids: [...many.slice(1), ids[0]] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.spec.event_ids).toHaveLength(1000);
    expect(r.body.preview.events).toBe(1);
    for (const detector of ['d'.repeat(256), `${'d'.repeat(255)}*`]) {
      const d = await preview({ detector });
      expect([d.status, d.body.spec?.detector, d.body.preview], detector.slice(-3)).toEqual([
        200,
        detector,
        { events: 0, attachments: 0, attachment_bytes: 0 },
      ]);
    }
  });

  it('is for the superadmin only', async () => {
    for (const c of [x.a.admin, x.a.operator]) {
      expect((await c.post('/api/v1/events/purge/preview', {})).status).toBe(403);
      expect((await c.post('/api/v1/events/purge', {})).status).toBe(403);
    }
    expect((await x.anon.post('/api/v1/events/purge/preview', {})).status).toBe(401);
  });
});

describe('POST /api/v1/events/purge and the background run', () => {
  it('409 event_purge_empty for an empty selection; unknown or malformed job ids are 404', async () => {
    const r = await x.root.post('/api/v1/events/purge', { detector: 'no-such-detector' });
    expect([r.status, r.body]).toEqual([409, { error: 'event_purge_empty' }]);
    for (const id of ['00000000-0000-7000-8000-000000000000', 'nope']) {
      const g = await x.root.get(`/api/v1/cleanup-jobs/${id}`);
      expect([g.status, g.body]).toEqual([404, { error: 'not_found' }]);
    }
    // the job id is the only handle: there is no list of jobs (no such path: 501, document 1)
    const list = await x.root.get('/api/v1/cleanup-jobs');
    expect([list.status, list.body]).toEqual([501, { error: 'not_implemented' }]);
    const empty = await x.root.get('/api/v1/cleanup-jobs/');
    expect([empty.status, empty.body]).toEqual([404, { error: 'not_found' }]);
  });

  it('queues a job (202, audited event.delete), then deletes rows, evidence bytes, usage and ext ids; 410 afterwards; as_of freezes', async () => {
    const ref = await upload(modA, 1000);
    const ref2 = await upload(modA, 500);
    const ext = unique('ext');
    const [gone, goneDebug, other] = await send(modA, [
      {
        detector: 'job.x',
        occurred_at: at(10),
        camera_id: cam1,
        severity: 'error',
        attachments: [ref, ref2],
        ext_id: ext,
      },
      { detector: 'job.x', occurred_at: at(11), camera_id: cam1, severity: 'debug' },
      { detector: 'other.y', occurred_at: at(12), camera_id: cam2, severity: 'error' },
    ]);
    const usage0 = await t.plane.services.evidence.usage(x.a.orgId);
    const key = (
      await t.db.database.db
        .selectFrom('attachments')
        .select('storage_key')
        .where('ref', '=', ref)
        .executeTakeFirstOrThrow()
    ).storage_key;
    await stat(join(dir, key));
    const cursor = (await x.a.admin.get('/api/v1/events?limit=1')).body.stream_cursor;
    const stream = await SseReader.open(`${base}/api/v1/events/stream`, auth(x.a.admin));

    const spec = (await preview({ detector: 'job.*', org_id: x.a.orgId })).body;
    expect(spec.preview).toEqual({ events: 1, attachments: 2, attachment_bytes: 1500 });
    // written after as_of: not selected by this job
    const [late] = await send(modA, [
      { detector: 'job.x', occurred_at: new Date().toISOString(), camera_id: cam1, severity: 'error' },
    ]);
    const r = await x.root.post('/api/v1/events/purge', spec.spec);
    expect(r.status, r.text).toBe(202);
    expect(r.body).toEqual({
      id: expect.any(String),
      kind: 'events',
      org_id: x.a.orgId,
      state: 'queued',
      preview: spec.preview,
      progress: {},
      created_at: expect.any(String),
      finished_at: null,
      last_error: null,
    });
    const audit = await lastAudit(x.root, 'event.delete', r.body.id);
    expect(audit).toMatchObject({ object_type: 'cleanup_job', object_id: r.body.id, org_id: x.a.orgId });
    expect(audit.params).toEqual({ spec: spec.spec, preview: spec.preview });

    const job = await finished(r.body.id);
    expect(job).toMatchObject({ state: 'finished', progress: { events: 1, attachments: 2 }, last_error: null });
    // the purge day: feed cursors now carry it
    const day = purgeDayOf(Date.now());
    expect((await x.a.admin.get('/api/v1/events?limit=1')).body.stream_cursor).toMatch(new RegExp(`^d${day}:\\d+$`));
    expect((await x.a.admin.get(`/api/v1/events/${gone}`)).body).toEqual({ error: 'archived_data_expired' });
    expect((await x.a.admin.get(`/api/v1/events/${gone}`)).status).toBe(410);
    expect((await x.a.admin.post(`/api/v1/events/${gone}/star`)).status).toBe(410);
    expect((await x.a.admin.patch(`/api/v1/events/${gone}`, { ended_at: at(20) })).status).toBe(410);
    expect((await x.a.operator.get(`/api/v1/events/${gone}`)).status).toBe(410);
    // not disclosed to those who never saw it
    expect((await x.b.admin.get(`/api/v1/events/${gone}`)).status).toBe(404);
    expect((await x.a.admin.get(`/api/v1/events/${goneDebug}`)).status).toBe(200);
    expect((await x.a.admin.get(`/api/v1/events/${other}`)).status).toBe(200);
    expect((await x.a.admin.get(`/api/v1/events/${late}`)).status).toBe(200);
    const dl = await x.a.admin.get(`/api/v1/attachments/${ref}`);
    expect([dl.status, dl.body]).toEqual([410, { error: 'archived_data_expired' }]);
    expect((await x.b.admin.get(`/api/v1/attachments/${ref}`)).status).toBe(404);
    await expect(stat(join(dir, key))).rejects.toThrow();
    const usage1 = await t.plane.services.evidence.usage(x.a.orgId);
    expect(usage1).toEqual({ bytes: usage0.bytes - 1500, attachments: usage0.attachments - 2 });
    // the ext_id names a new event now
    const [again] = await send(modA, [{ detector: 'job.x', occurred_at: at(10), ext_id: ext }]);
    expect(again).not.toBe(gone);

    // a stream open across the purge day change ends; an old cursor resyncs
    await stream.until((s) => s.ended);
    expect(stream.raw.endsWith(': resync-required\n\n')).toBe(true);
    const old = await SseReader.open(`${base}/api/v1/events/stream`, { ...auth(x.a.admin), 'last-event-id': cursor });
    await old.until((s) => s.ended);
    expect(old.raw).toBe(': resync-required\n\n');
  });

  it('tombstones of a later purge the same day reach streams on the purge day cursor, within camera rights', async () => {
    const [c1, c2] = await send(modA, [
      { detector: 'tomb', occurred_at: at(30), camera_id: cam1, severity: 'info' },
      { detector: 'tomb', occurred_at: at(31), camera_id: cam2, severity: 'info' },
    ]);
    // make sure the purge day is set (an earlier purge in this file ran today)
    const first = await x.root.post('/api/v1/events/purge', { event_ids: [c2] });
    await finished(first.body.id);
    const cursor = (await x.a.admin.get('/api/v1/events?limit=1')).body.stream_cursor as string;
    expect(cursor).toMatch(/^d\d{8}:\d+$/);
    const admin = await SseReader.open(`${base}/api/v1/events/stream`, { ...auth(x.a.admin), 'last-event-id': cursor });
    const op = await SseReader.open(`${base}/api/v1/events/stream`, auth(x.a.operator));
    const [c3] = await send(modA, [{ detector: 'tomb', occurred_at: at(32), camera_id: cam2, severity: 'info' }]);
    const job = await x.root.post('/api/v1/events/purge', { event_ids: [c1, c3] });
    expect(job.status).toBe(202);
    await finished(job.body.id);
    await admin.until((s) => s.events.filter((e) => e.data.deleted).length >= 2);
    const tombs = admin.events.filter((e) => e.data.deleted);
    expect(tombs.map((e) => e.data.id).sort()).toEqual([c1, c3].sort());
    expect(tombs[0]!.id).toBe(`${cursor.split(':')[0]}:${tombs[0]!.data.seq}`);
    expect(tombs[0]!.data).toMatchObject({ deleted: true, updated: false, org_id: x.a.orgId });
    expect(tombs[0]!.data).not.toHaveProperty('interval');
    await op.until((s) => s.events.some((e) => e.data.deleted));
    await new Promise((r) => setTimeout(r, 100));
    expect(op.events.filter((e) => e.data.deleted).map((e) => e.data.id)).toEqual([c1]);
    // replay after a reconnect includes tombstones
    const replay = await SseReader.open(`${base}/api/v1/events/stream`, {
      ...auth(x.a.admin),
      'last-event-id': cursor,
    });
    await replay.until((s) => s.events.filter((e) => e.data.deleted).length >= 2);
    expect(replay.events.every((e) => e.replay)).toBe(true);
    for (const s of [admin, op, replay]) s.close();
  });

  it('GET /api/v1/cleanup-jobs/{id} is for the superadmin only', async () => {
    const [id] = await send(modA, [{ detector: 'sa', occurred_at: at(40), severity: 'info' }]);
    const job = (await x.root.post('/api/v1/events/purge', { event_ids: [id] })).body;
    for (const c of [x.a.admin, x.a.operator]) expect((await c.get(`/api/v1/cleanup-jobs/${job.id}`)).status).toBe(403);
    await finished(job.id);
  });
});
