import { describe, expect, it } from 'vitest';
import { startPlane } from '../harness.js';
import { SseReader } from '../sse-client.js';
import { unique } from '../inventory.helpers.js';
import {
  auth,
  cam1,
  cam2,
  camB,
  clock,
  head,
  liveStreamWorld,
  modA,
  modB,
  now,
  open,
  send,
  t,
  x,
} from './live-stream.helpers.js';

// GET /api/v1/events/stream: the frames and who gets them, and the stream across plane processes.
// Resuming from a cursor: live-stream.replay.test.ts; lag, midnight and capacity: live-stream.limits.test.ts.
liveStreamWorld();

// Document 2's frame fields; reconcile_required only when true.
const FRAME_KEYS = [
  'camera_id',
  'camera_name',
  'category',
  'confidence',
  'deleted',
  'detector',
  'detector_title',
  'ended_at',
  'ext_id',
  'id',
  'interval',
  'list_values',
  'node_id',
  'node_name',
  'occurred_at',
  'org_id',
  'seq',
  'severity',
  'starred',
  'subject_ref',
  'subject_type',
  'template_id',
  'updated',
];

describe('GET /api/v1/events/stream', () => {
  it('sends live frames: id g:<seq>, data only, the summary fields, severity as a number, debug included, heartbeats', async () => {
    const s = await open(x.a.admin);
    expect(s.status).toBe(200);
    expect(s.headers!.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(s.headers!.get('cache-control')).toBe('no-store');
    const { ids } = await send(modA, [
      {
        detector: 'lpr.plate',
        camera_id: cam1,
        severity: 'debug',
        subject_type: 'plate',
        subject_ref: 'AB123',
        ext_id: unique('x'),
        confidence: 87.5,
      },
      { detector: 'motion', camera_id: cam2, severity: 'critical', interval: true, detector_title: { en: 'Motion' } },
    ]);
    await s.until((r) => r.events.length >= 2 && r.comments.includes(''));
    const [a, b] = s.events;
    expect(a!.id).toBe(`g:${a!.data.seq}`);
    expect(b!.data.seq).toBeGreaterThan(a!.data.seq);
    expect(Object.keys(a!.data).sort()).toEqual(FRAME_KEYS);
    const cam = (await x.a.admin.get(`/api/v1/cameras/${cam1}`)).body;
    expect(a!.data).toMatchObject({
      id: ids[0],
      org_id: x.a.orgId,
      camera_id: cam1,
      camera_name: cam.name,
      node_id: cam.node_id,
      detector: 'lpr.plate',
      severity: 0,
      category: 'camera',
      interval: false,
      subject_type: 'plate',
      subject_ref: 'AB123',
      confidence: 87.5,
      starred: false,
      list_values: [],
      ended_at: null,
    });
    expect(b!.data).toMatchObject({ id: ids[1], severity: 4, interval: true, detector_title: { en: 'Motion' } });
    expect(s.raw).not.toMatch(/^event:/m);
    expect(s.events.every((e) => !e.replay)).toBe(true);
    s.close();
  });

  it('camera rights per frame: an operator gets granted cameras only; another organisation nothing; org narrowing; cross_org', async () => {
    const op = await open(x.a.operator);
    const adminB = await open(x.b.admin);
    const rootB = await open(x.root, `?org=${x.b.orgId}`);
    const { ids } = await send(modA, [
      { detector: 'd', camera_id: cam2 },
      { detector: 'd' },
      { detector: 'd', camera_id: cam1 },
    ]);
    const [idB] = (await send(modB, [{ detector: 'd', camera_id: camB }])).ids;
    await op.until((r) => r.events.some((e) => e.data.id === ids[2]));
    await adminB.until((r) => r.events.some((e) => e.data.id === idB));
    await rootB.until((r) => r.events.some((e) => e.data.id === idB));
    await new Promise((r) => setTimeout(r, 150));
    expect(op.events.map((e) => e.data.id)).toEqual([ids[2]]);
    expect(adminB.events.map((e) => e.data.id)).toEqual([idB]);
    expect(rootB.events.map((e) => e.data.id)).toEqual([idB]);
    for (const s of [op, adminB, rootB]) s.close();
    const foreign = await open(x.a.admin, `?org=${x.b.orgId}`);
    expect([foreign.status, foreign.body]).toEqual([403, { error: 'cross_org' }]);
  });

  it('follows grant changes at once: a revoked camera stops, a granted one starts', async () => {
    const op = await open(x.a.operator);
    await new Promise((r) => setTimeout(r, 50));
    expect(
      (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam2], tag_ids: [] })).status,
    ).toBe(200);
    const { ids } = await send(modA, [
      { detector: 'r', camera_id: cam1 },
      { detector: 'r', camera_id: cam2 },
    ]);
    await op.until((r) => r.events.some((e) => e.data.id === ids[1]));
    expect(op.events.map((e) => e.data.id)).toEqual([ids[1]]);
    expect(
      (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] })).status,
    ).toBe(200);
    const again = await send(modA, [
      { detector: 'r', camera_id: cam2 },
      { detector: 'r', camera_id: cam1 },
    ]);
    await op.until((r) => r.events.some((e) => e.data.id === again.ids[1]));
    expect(op.events.map((e) => e.data.id)).toEqual([ids[1], again.ids[1]]);
    op.close();
  });

  it('star and close changes arrive as updated frames (a star leaves out interval); big frames carry reconcile_required', async () => {
    const s = await open(x.a.admin);
    const { ids } = await send(modA, [{ detector: 'itv', camera_id: cam1, interval: true }]);
    await s.until((r) => r.events.some((e) => e.data.id === ids[0]));
    expect((await x.a.admin.post(`/api/v1/events/${ids[0]}/star`)).status).toBe(200);
    await s.until((r) => r.events.filter((e) => e.data.id === ids[0]).length >= 2);
    const star = s.events.filter((e) => e.data.id === ids[0])[1]!.data;
    expect(star).toMatchObject({ updated: true, deleted: false, starred: true });
    expect(star).not.toHaveProperty('interval');
    expect((await modA.patch(`/api/v1/events/${ids[0]}`, { ended_at: now() })).status).toBe(200);
    await s.until((r) => r.events.filter((e) => e.data.id === ids[0]).length >= 3);
    const closed = s.events.filter((e) => e.data.id === ids[0])[2]!.data;
    expect(closed).toMatchObject({ updated: true, interval: true, ended_at: expect.any(String), starred: true });
    expect(closed.seq).toBeGreaterThan(star.seq);

    const title = Object.fromEntries(
      Array.from({ length: 32 }, (_, i) => [
        `x${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
        'x'.repeat(256),
      ]),
    );
    const big = await send(modA, [{ detector: 'big', camera_id: cam1, detector_title: title, subject_ref: 'S1' }]);
    await s.until((r) => r.events.some((e) => e.data.id === big.ids[0]));
    const f = s.events.find((e) => e.data.id === big.ids[0])!;
    expect(f.data).toMatchObject({
      reconcile_required: true,
      detector_title: null,
      subject_ref: null,
      camera_id: cam1,
    });
    expect(Buffer.byteLength(f.raw)).toBeLessThan(8192);
    s.close();
  });

  it('rows read from the table (a batch too big to carry inline) arrive in order, replayable', async () => {
    const cursor = await head();
    const s = await open(x.a.admin);
    const { ids } = await send(
      modA,
      Array.from({ length: 200 }, (_, i) => ({ detector: `bulk${i}`, camera_id: cam1, payload: { i } })),
    );
    await s.until((r) => r.events.filter((e) => ids.includes(e.data.id)).length === 200);
    const got = s.events.filter((e) => ids.includes(e.data.id));
    expect(got.map((e) => e.data.id)).toEqual(ids);
    expect(got.every((e, i) => i === 0 || e.data.seq > got[i - 1]!.data.seq)).toBe(true);
    expect(got[0]!.data).toHaveProperty('interval', false);
    // updated and deleted are always sent; only reconcile_required is absent when false
    expect(got[0]!.data).toMatchObject({ updated: false, deleted: false });
    expect(got[0]!.data).not.toHaveProperty('reconcile_required');
    s.close();
    const r = await open(x.a.admin, '', { 'last-event-id': cursor });
    await r.until((q) => q.events.length >= 200);
    expect(r.events.slice(0, 200).map((e) => e.data.id)).toEqual(ids);
    r.close();
  });
});

describe('event stream across processes', () => {
  it('a process that starts later fills its ring from the table: changed rows replay as updated frames', async () => {
    const cursor = await head();
    const { ids } = await send(modA, [
      { detector: 'late-ring', camera_id: cam1 },
      { detector: 'late-ring-2', camera_id: cam1 },
    ]);
    expect((await x.a.admin.post(`/api/v1/events/${ids[0]}/star`)).status).toBe(200);
    const three = await startPlane({ db: t.db, clock });
    try {
      const url3 = await three.plane.app.listen({ host: '127.0.0.1', port: 0 });
      const s = await SseReader.open(`${url3}/api/v1/events/stream`, { ...auth(x.a.admin), 'last-event-id': cursor });
      await s.until((r) => r.events.length >= 2);
      expect(s.events.map((e) => [e.data.id, e.replay, e.data.updated ?? false])).toEqual([
        [ids[1], true, false],
        [ids[0], true, true],
      ]);
      expect(s.events[1]!.data).toMatchObject({ starred: true, interval: false });
      s.close();
    } finally {
      await three.close();
    }
  });

  it('delivers a batch written through one plane process to a stream on another, with the same cursors', async () => {
    const two = await startPlane({ db: t.db, clock });
    try {
      const url2 = await two.plane.app.listen({ host: '127.0.0.1', port: 0 });
      const s2 = await SseReader.open(`${url2}/api/v1/events/stream`, auth(x.a.admin));
      const s1 = await open(x.a.admin);
      const { ids } = await send(modA, [{ detector: 'xp1', camera_id: cam1 }, { detector: 'xp2' }]);
      const big = await send(
        modA,
        Array.from({ length: 100 }, (_, i) => ({ detector: `xpb${i}` })),
      );
      for (const s of [s1, s2])
        await s.until((r) => r.events.filter((e) => [...ids, ...big.ids].includes(e.data.id)).length === 102);
      const seen = (s: SseReader) => s.events.map((e) => `${e.id}/${e.data.id}`);
      expect(seen(s2)).toEqual(seen(s1));
      s1.close();
      s2.close();
    } finally {
      await two.close();
    }
  });
});
