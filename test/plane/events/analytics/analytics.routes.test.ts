import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { startPlane, type TestPlane } from '../../harness.js';
import type { Client } from '../../client.js';
import { cameraWorld, tenants, unique, type Tenants } from '../../inventory.helpers.js';
import { sendEvents } from '../../fixtures.js';

// POST /api/v1/event-analytics/query, query-batch and GET catalog (document 2 "Analytics",
// document 4 §11): rights, the debug rule, every error code, the batch rules, fixed
// daylight-saving days of Europe/Berlin and America/New_York.

describe('event analytics routes', () => {
  let t: TestPlane;
  let x: Tenants;
  let camA: string;
  let camB: string;
  const now = Date.now();
  const from = new Date(now - 3600_000).toISOString();
  const to = new Date(now + 60_000).toISOString();
  const q = (c: Client, body: Record<string, unknown>) =>
    c.post('/api/v1/event-analytics/query', { from, to, measure: 'count_events', ...body });

  beforeAll(async () => {
    t = await startPlane();
    x = await tenants(t);
    const world = await cameraWorld(t, x);
    camA = await world.camera(x.a.admin);
    camB = await world.camera(x.a.admin);
    expect(
      (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [camA], tag_ids: [] })).status,
    ).toBe(200);
    const mod = await world.moduleToken(x.a.admin);
    const at = (i: number) => new Date(now - 600_000 + i * 1000).toISOString();
    await sendEvents(mod, [
      { detector: 'person', camera_id: camA, occurred_at: at(1), severity: 'info', confidence: 0.5 },
      { detector: 'person', camera_id: camA, occurred_at: at(2), severity: 'warning', confidence: 1 },
      { detector: 'car', camera_id: camB, occurred_at: at(3), severity: 'info' },
      { detector: 'car', camera_id: camB, occurred_at: at(4), severity: 'debug' },
    ]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("counts by detector within the caller's camera rights, debug only when a bound reaches zero", async () => {
    const admin = await q(x.a.admin, { group_by: 'detector' });
    expect(admin.status, admin.text).toBe(200);
    expect(admin.body.points.map((p: { key: string; value: number }) => [p.key, p.value])).toEqual([
      ['person', 2],
      ['car', 1],
    ]);
    expect(admin.body).toMatchObject({
      measure: 'count_events',
      group_by: 'detector',
      bucket: 'none',
      timezone: 'UTC',
      truncated: false,
      warnings: [],
    });
    const operator = await q(x.a.operator, { group_by: 'detector' });
    expect(operator.body.points.map((p: { key: string; value: number }) => [p.key, p.value])).toEqual([['person', 2]]);
    const debug = await q(x.a.admin, { filters: { severity_min: 0, severity_max: 0 } });
    expect(debug.body.points).toEqual([{ bucket: null, key: null, label: null, value: 1, sample_count: 1 }]);
    const other = await q(x.b.admin, {});
    expect(other.body.points).toEqual([]);
  });

  it('labels cameras by name, severities by name, and cuts to top_limit with truncated', async () => {
    const cams = await q(x.a.admin, { group_by: 'camera', filters: { severity_min: 0 } });
    expect(cams.body.points).toHaveLength(2);
    expect(
      cams.body.points.every((p: { label: string; key: string }) => p.label !== p.key && typeof p.label === 'string'),
    ).toBe(true);
    const sev = await q(x.a.admin, { group_by: 'severity', top_limit: 1 });
    expect(sev.body.points).toEqual([{ bucket: null, key: 'info', label: 'info', value: 2, sample_count: 2 }]);
    expect(sev.body.truncated).toBe(true);
    const conf = await q(x.a.admin, { measure: 'avg_confidence' });
    expect(conf.body.points[0]).toMatchObject({ value: 0.75, sample_count: 2 });
  });

  it('filters by tag and node, and warns of a field it does not use', async () => {
    const tag = (await x.a.admin.post('/api/v1/tags', { name: unique('tag') })).body.id;
    expect((await x.a.admin.patch(`/api/v1/cameras/${camA}`, { tag_ids: [tag] })).status).toBe(200);
    const byTag = await q(x.a.admin, { filters: { tag_ids: [tag] } });
    expect(byTag.body.points[0]).toMatchObject({ value: 2 });
    expect((await q(x.a.admin, { filters: { tag_ids: [randomUUID()] } })).body.points).toEqual([]);
    const node = (await x.a.admin.get(`/api/v1/cameras/${camA}`)).body.node_id;
    const byNode = await q(x.a.admin, { group_by: 'node', filters: { node_ids: [node] } });
    expect(byNode.body.points).toEqual([expect.objectContaining({ key: node, value: 3, sample_count: 3 })]);
    expect(byNode.body.points[0].label).not.toBe(node);
    expect((await q(x.a.admin, { filters: { node_ids: ['not-a-uuid'] } })).body.points).toEqual([]);
    const warned = await q(x.a.admin, {
      measure_field: { template_id: randomUUID(), key: 'x' },
      group_field: { template_id: randomUUID(), key: 'y' },
    });
    expect(warned.body.warnings).toEqual(['measure_field_ignored', 'group_field_ignored']);
  });

  it('fingerprints the normalised query and stamps as_of', async () => {
    const a = await q(x.a.admin, { group_by: 'detector', filters: { detectors: ['person', 'car'] } });
    const b = await q(x.a.admin, {
      group_by: 'detector',
      top_limit: 12,
      timezone: 'UTC',
      filters: { detectors: ['car', 'person', 'car'] },
    });
    const c = await q(x.a.admin, { group_by: 'camera' });
    expect(a.body.query_fingerprint).toBe(b.body.query_fingerprint);
    expect(c.body.query_fingerprint).not.toBe(a.body.query_fingerprint);
    expect(Math.abs(Date.parse(a.body.as_of) - Date.now())).toBeLessThan(60_000);
  });

  it.each([
    [{ from: to, to: from }, 'analytics_bad_range'],
    [{ from: 'yesterday' }, 'analytics_bad_range'],
    [{ timezone: 'Mars/Olympus' }, 'analytics_bad_timezone'],
    [{ version: 2 }, 'analytics_version_unsupported'],
    [{ top_limit: 0 }, 'analytics_top_limit'],
    [{ top_limit: 101 }, 'analytics_top_limit'],
    [{ measure: 'field_sum' }, 'analytics_field_required'],
    [{ group_by: 'field' }, 'analytics_field_required'],
    [{ semantics: 'active', bucket: 'hour' }, 'active_semantics_cannot_bucket'],
    [{ filters: { camera_ids: Array.from({ length: 65 }, () => randomUUID()) } }, 'analytics_filter_too_large'],
    [{ filters: { detectors: [''] } }, 'analytics_bad_detector'],
    [{ filters: { detectors: ['a*b'] } }, 'analytics_bad_detector'],
    [{ filters: { severity_min: 5 } }, 'analytics_bad_severity'],
    [{ filters: { severity_min: 3, severity_max: 1 } }, 'analytics_bad_severity'],
    [{ filters: { category: 'weather' } }, 'analytics_bad_category'],
    [{ measure: 'field_sum', measure_field: { template_id: 'nope', key: 'n' } }, 'analytics_field_bad_key'],
    [{ measure: 'field_sum', measure_field: { template_id: randomUUID(), key: 'n' } }, 'analytics_field_not_found'],
    [
      { filters: { fields: [{ field: { template_id: randomUUID(), key: 'n' }, op: 'like', value: 1 }] } },
      'analytics_field_bad_filter',
    ],
    [
      { filters: { fields: [{ field: { template_id: randomUUID(), key: 'n' }, op: 'eq' }] } },
      'analytics_field_bad_filter',
    ],
  ])('400 for %j: %s', async (body, code) => {
    const r = await q(x.a.admin, body);
    expect(r.status, r.text).toBe(400);
    expect(r.body).toEqual({ error: code });
  });

  it("checks field references against the organisation's templates and the field types", async () => {
    const own = await x.a.admin.post('/api/v1/templates', {
      name: unique('tpl'),
      doc: {
        detector_match: 'person*',
        fields: [
          { key: 'speed', source: '/speed', type: 'number' },
          { key: 'plate', source: '/plate', type: 'string' },
        ],
      },
    });
    expect(own.status, own.text).toBe(201);
    const foreign = await x.b.admin.post('/api/v1/templates', {
      name: unique('tpl'),
      doc: { detector_match: 'car*', fields: [{ key: 'speed', source: '/speed', type: 'number' }] },
    });
    expect(foreign.status, foreign.text).toBe(201);
    const ref = (key: string, id = own.body.id) => ({ template_id: id, key });
    const code = async (body: Record<string, unknown>) => (await q(x.a.admin, body)).body.error;
    expect(await code({ measure: 'field_sum', measure_field: ref('speed', foreign.body.id) })).toBe(
      'analytics_custom_field_requires_org',
    );
    expect(await code({ measure: 'field_sum', measure_field: ref('nothing') })).toBe('analytics_field_not_found');
    expect(await code({ measure: 'field_sum', measure_field: ref('plate') })).toBe('analytics_field_operator_type');
    expect(await code({ filters: { fields: [{ field: ref('plate'), op: 'gt', value: 'a' }] } })).toBe(
      'analytics_field_operator_type',
    );
    expect(await code({ filters: { fields: [{ field: ref('speed'), op: 'eq', value: 'fast' }] } })).toBe(
      'analytics_field_filter_type',
    );
    const ok = await q(x.a.admin, {
      measure: 'field_count',
      measure_field: ref('plate'),
      group_by: 'field',
      group_field: ref('plate'),
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.measure_field).toEqual(ref('plate'));
  });

  it('403 cross_org for another organisation, a superadmin may name any', async () => {
    expect((await q(x.a.admin, { org_id: x.b.orgId })).body).toEqual({ error: 'cross_org' });
    const root = await q(x.root, { org_id: x.a.orgId, group_by: 'detector' });
    expect(root.body.points.map((p: { key: string }) => p.key)).toEqual(['person', 'car']);
  });

  it('a batch answers each query in its result, takes stream_cursor first, and refuses bad batches', async () => {
    const r = await x.a.admin.post('/api/v1/event-analytics/query-batch', {
      queries: [
        { key: 'ok', query: { from, to, measure: 'count_events' } },
        { key: 'bad', query: { from, to, measure: 'count_events', top_limit: 0 } },
        { key: 'shape', query: { nonsense: true } },
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.stream_cursor).toMatch(/^(g|d\d{4}-\d{2}-\d{2}):\d+$/);
    expect(r.body.results[0]).toMatchObject({ key: 'ok', result: { measure: 'count_events' } });
    expect(r.body.results[0].result.points[0].value).toBe(3);
    expect(r.body.results[1]).toEqual({ key: 'bad', error: 'analytics_top_limit' });
    expect(r.body.results[2]).toEqual({ key: 'shape', error: 'bad_request' });
    const batch = (queries: unknown[]) => x.a.admin.post('/api/v1/event-analytics/query-batch', { queries });
    const one = { key: 'k', query: { from, to, measure: 'count_events' } };
    for (const queries of [
      [],
      Array.from({ length: 33 }, () => one),
      [{ ...one, key: '' }],
      [{ ...one, key: 'k'.repeat(129) }],
    ]) {
      expect((await batch(queries)).body).toEqual({ error: 'analytics_bad_batch' });
    }
    expect((await batch([{ key: 'x', query: { from, to, measure: 'count_events', org_id: x.b.orgId } }])).body).toEqual(
      { error: 'cross_org' },
    );
  });

  it('the catalog lists enabled templates, system ones first, with their fields', async () => {
    const r = await x.a.admin.get('/api/v1/event-analytics/catalog');
    expect(r.status, r.text).toBe(200);
    const systemFirst = r.body.templates.findIndex((tpl: { org_id: string | null }) => tpl.org_id !== null);
    expect(r.body.templates.slice(0, systemFirst).every((tpl: { org_id: string | null }) => tpl.org_id === null)).toBe(
      true,
    );
    expect(
      r.body.templates.every((tpl: { org_id: string | null }) => tpl.org_id === null || tpl.org_id === x.a.orgId),
    ).toBe(true);
    expect(r.body.fields.some((f: { key: string; type: string }) => f.key === 'speed' && f.type === 'number')).toBe(
      true,
    );
    expect((await x.a.admin.get(`/api/v1/event-analytics/catalog?org=${x.b.orgId}`)).body).toEqual({
      error: 'cross_org',
    });
    const root = await x.root.get(`/api/v1/event-analytics/catalog?org=${x.b.orgId}`);
    expect(
      root.body.templates.every((tpl: { org_id: string | null }) => tpl.org_id === null || tpl.org_id === x.b.orgId),
    ).toBe(true);
  });

  describe('daylight-saving days', () => {
    /** One event at the start of every UTC hour of [fromIso, toIso), in organisation b (nothing else there). */
    async function hourly(fromIso: string, toIso: string) {
      const db = t.db.database.db;
      await sql`delete from events where org_id = ${x.b.orgId}::uuid`.execute(db);
      for (let at = Date.parse(fromIso); at < Date.parse(toIso); at += 3600_000) {
        await sql`insert into events (id, occurred_at, seq, org_id, category, detector, severity) values
          (${randomUUID()}::uuid, ${new Date(at)}, nextval('event_seq'), ${x.b.orgId}::uuid, 'system', 'tick', 1)`.execute(
          db,
        );
      }
    }
    const days = async (timezone: string, fromIso: string, toIso: string, bucket = 'day') => {
      const r = await x.b.admin.post('/api/v1/event-analytics/query', {
        from: fromIso,
        to: toIso,
        timezone,
        bucket,
        measure: 'count_events',
      });
      expect(r.status, r.text).toBe(200);
      return r.body.points.map((p: { bucket: string; value: number }) => [p.bucket, p.value]);
    };

    it('Europe/Berlin: 23 hours on 2026-03-29, 25 on 2026-10-25', async () => {
      await hourly('2026-03-28T23:00:00Z', '2026-03-30T22:00:00Z');
      expect(await days('Europe/Berlin', '2026-03-28T23:00:00Z', '2026-03-30T22:00:00Z')).toEqual([
        ['2026-03-29T00:00:00+01:00', 23],
        ['2026-03-30T00:00:00+02:00', 24],
      ]);
      const hours = await days('Europe/Berlin', '2026-03-29T00:00:00Z', '2026-03-29T03:00:00Z', 'hour');
      expect(hours).toEqual([
        ['2026-03-29T01:00:00+01:00', 1],
        ['2026-03-29T03:00:00+02:00', 1],
        ['2026-03-29T04:00:00+02:00', 1],
      ]);
      await hourly('2026-10-24T22:00:00Z', '2026-10-26T23:00:00Z');
      expect(await days('Europe/Berlin', '2026-10-24T22:00:00Z', '2026-10-26T23:00:00Z')).toEqual([
        ['2026-10-25T00:00:00+02:00', 25],
        ['2026-10-26T00:00:00+01:00', 24],
      ]);
      const back = await days('Europe/Berlin', '2026-10-24T23:00:00Z', '2026-10-25T02:00:00Z', 'hour');
      expect(back).toEqual([
        ['2026-10-25T01:00:00+02:00', 1],
        ['2026-10-25T02:00:00+02:00', 1],
        ['2026-10-25T02:00:00+01:00', 1],
      ]);
    });

    it('America/New_York: 23 hours on 2026-03-08, 25 on 2026-11-01', async () => {
      await hourly('2026-03-08T05:00:00Z', '2026-03-10T04:00:00Z');
      expect(await days('America/New_York', '2026-03-08T05:00:00Z', '2026-03-10T04:00:00Z')).toEqual([
        ['2026-03-08T00:00:00-05:00', 23],
        ['2026-03-09T00:00:00-04:00', 24],
      ]);
      await hourly('2026-11-01T04:00:00Z', '2026-11-03T05:00:00Z');
      expect(await days('America/New_York', '2026-11-01T04:00:00Z', '2026-11-03T05:00:00Z')).toEqual([
        ['2026-11-01T00:00:00-04:00', 25],
        ['2026-11-02T00:00:00-05:00', 24],
      ]);
    });
  });
});
