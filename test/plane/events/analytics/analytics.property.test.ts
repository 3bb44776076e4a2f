import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { ManualClock, startPlane, type TestPlane } from '../../harness.js';
import type { Client } from '../../client.js';
import { cameraWorld, tenants, unique, type Tenants } from '../../inventory.helpers.js';
import { compute, type ModelEvent, type ModelQuery } from './analytics.model.js';

// The analytics engine against an independent naive computation (analytics.model.ts): random
// events (instants and intervals, open and closed, several cameras, detectors, severities,
// template fields) and random queries (every measure, group, bucket, semantics, filters and
// time zones with daylight-saving changes inside the window).

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'];
// Windows around daylight-saving changes: Berlin 2026-03-29 and 2026-10-25, New York 2026-03-08 and 2026-11-01.
const BASES = ['2026-03-29T00:00:00Z', '2026-03-08T06:00:00Z', '2026-10-25T00:00:00Z', '2026-11-01T05:00:00Z'].map(
  Date.parse,
);
const SPAN = 3 * 86_400_000;
const DETECTORS = ['person', 'person.face', 'car', 'system.node'];
/** A filter present in one query of four: most queries see most events. */
const sometimes = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

describe('analytics: property test against a naive model', () => {
  let t: TestPlane;
  let x: Tenants;
  let admin: Client;
  let cams: string[];
  let nodeId: string;
  let templateId: string;
  // One as_of after every window: sessions stay valid, open intervals last until it.
  const AS_OF = Date.parse('2026-11-10T00:00:00Z');
  const clock = new ManualClock(AS_OF);

  beforeAll(async () => {
    t = await startPlane({ clock });
    x = await tenants(t);
    admin = x.a.admin;
    const world = await cameraWorld(t, x);
    nodeId = world.node;
    cams = [await world.camera(admin), await world.camera(admin), await world.camera(admin)];
    const tpl = await admin.post('/api/v1/templates', {
      name: unique('tpl'),
      doc: {
        detector_match: 'person*',
        fields: [
          { key: 'num', source: '/num', type: 'number' },
          { key: 'kind', source: '/kind', type: 'enum', enum_values: ['a', 'b', 'c'] },
        ],
      },
    });
    expect(tpl.status, tpl.text).toBe(201);
    templateId = tpl.body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const eventArb = (base: number) =>
    fc
      .record({
        at: fc.integer({ min: 0, max: SPAN / 1000 }),
        interval: fc.boolean(),
        length: fc.option(fc.integer({ min: 0, max: 30 * 3600 }), { nil: null }),
        cam: fc.integer({ min: 0, max: 3 }),
        detector: fc.constantFrom(...DETECTORS),
        category: fc.constantFrom('camera' as const, 'system' as const),
        severity: fc.constantFrom(null, 0, 1, 2, 3, 4),
        confidence: fc.option(
          fc.integer({ min: 0, max: 4 }).map((n) => n / 4),
          { nil: null },
        ),
        starred: fc.boolean(),
        templated: fc.boolean(),
        num: fc.option(fc.integer({ min: -5, max: 20 }), { nil: null }),
        kind: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: null }),
      })
      .map((g): ModelEvent => {
        const occurred = base - SPAN / 2 + g.at * 1000;
        const fields: Record<string, string | number> = {};
        if (g.templated && g.num !== null) fields.num = g.num;
        if (g.templated && g.kind !== null) fields.kind = g.kind;
        return {
          id: randomUUID(),
          occurred_at: occurred,
          interval: g.interval,
          ended_at: g.interval && g.length !== null ? occurred + g.length * 1000 : null,
          camera_id: g.cam < 3 ? cams[g.cam]! : null,
          node_id: g.cam < 3 ? nodeId : null,
          detector: g.detector,
          category: g.category,
          severity: g.severity,
          confidence: g.confidence,
          starred: g.starred,
          template_id: g.templated ? templateId : null,
          fields,
        };
      });

  const queryArb = (base: number) =>
    fc
      .record({
        a: fc.integer({ min: 0, max: SPAN / 1000 }),
        b: fc.integer({ min: 1, max: SPAN / 1000 }),
        timezone: fc.constantFrom(...ZONES),
        measure: fc.constantFrom(
          'count_events',
          'unique_cameras',
          'open_events',
          'avg_confidence',
          'total_duration_seconds',
          'avg_duration_seconds',
          'field_count',
          'field_sum',
          'field_avg',
          'field_min',
          'field_max',
        ),
        group_by: fc.constantFrom('none', 'detector', 'camera', 'node', 'severity', 'category', 'field'),
        bucket: fc.constantFrom('none', 'hour', 'day'),
        semantics: fc.constantFrom('started', 'active'),
        top_limit: fc.integer({ min: 1, max: 6 }),
        detectors: sometimes(fc.subarray(['person*', 'car', 'system.node', 'person'])),
        camera: sometimes(fc.integer({ min: 0, max: 2 })),
        severity_min: sometimes(fc.integer({ min: 0, max: 4 })),
        severity_max: sometimes(fc.integer({ min: 0, max: 4 })),
        category: sometimes(fc.constantFrom('camera', 'system')),
        starred: sometimes(fc.boolean()),
        open: sometimes(fc.boolean()),
        field: sometimes(
          fc.constantFrom(
            { key: 'num', op: 'gt', value: 5 },
            { key: 'num', op: 'lte', value: 3 },
            { key: 'kind', op: 'eq', value: 'a' },
            { key: 'kind', op: 'neq', value: 'b' },
            { key: 'num', op: 'exists' },
            { key: 'kind', op: 'not_exists' },
          ),
        ),
      })
      .map((g): ModelQuery => {
        const from = base - SPAN / 2 + Math.min(g.a, g.b) * 1000;
        const to = base - SPAN / 2 + Math.max(g.a + 1, g.b) * 1000;
        let sevMin = g.severity_min ?? null;
        let sevMax = g.severity_max ?? null;
        if (sevMin !== null && sevMax !== null && sevMin > sevMax) [sevMin, sevMax] = [sevMax, sevMin];
        const fieldMeasure = g.measure.startsWith('field_');
        return {
          from: new Date(from).toISOString(),
          to: new Date(to).toISOString(),
          timezone: g.timezone,
          measure: g.measure,
          measure_field: fieldMeasure
            ? { template_id: templateId, key: g.measure === 'field_count' ? 'kind' : 'num' }
            : null,
          group_by: g.group_by,
          group_field: g.group_by === 'field' ? { template_id: templateId, key: 'kind' } : null,
          bucket: g.semantics === 'active' ? 'none' : g.bucket,
          semantics: g.semantics,
          top_limit: g.top_limit,
          filters: {
            ...(g.detectors?.length ? { detectors: g.detectors } : {}),
            ...(g.camera !== undefined ? { camera_ids: [cams[g.camera]!] } : {}),
            severity_min: sevMin,
            severity_max: sevMax,
            category: g.category ?? null,
            starred: g.starred ?? null,
            open: g.open ?? null,
            ...(g.field
              ? {
                  fields: [
                    {
                      field: { template_id: templateId, key: g.field.key },
                      op: g.field.op,
                      ...('value' in g.field ? { value: g.field.value } : {}),
                    },
                  ],
                }
              : {}),
          },
        };
      });

  async function store(events: ModelEvent[]) {
    const db = t.db.database.db;
    await sql`delete from events where org_id = ${x.a.orgId}::uuid`.execute(db);
    for (const e of events) {
      await sql`insert into events (id, occurred_at, seq, org_id, camera_id, node_id, category, detector, severity, confidence, "interval", ended_at, template_id, fields, starred)
        values (${e.id}::uuid, ${new Date(e.occurred_at)}, nextval('event_seq'), ${x.a.orgId}::uuid, ${e.camera_id}::uuid, ${e.node_id}::uuid, ${e.category}, ${e.detector},
          ${e.severity}, ${e.confidence}, ${e.interval}, ${e.ended_at === null ? null : new Date(e.ended_at)}, ${e.template_id}::uuid, ${JSON.stringify(e.fields)}::jsonb, ${e.starred})`.execute(
        db,
      );
    }
  }

  it('answers every query as the naive model does', async () => {
    const runArb = fc.integer({ min: 0, max: BASES.length - 1 }).chain((i) =>
      fc.record({
        base: fc.constant(BASES[i]!),
        events: fc.array(eventArb(BASES[i]!), { maxLength: 60 }),
        queries: fc.array(queryArb(BASES[i]!), { minLength: 1, maxLength: 6 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(runArb, async ({ events, queries }) => {
        const asOf = AS_OF;
        await store(events);
        const stored = events;
        for (const q of queries) {
          const r = await admin.post('/api/v1/event-analytics/query', q);
          expect(
            r.status,
            r.status === 500
              ? t.logs.text
                  .split('\n')
                  .filter((l) => l.includes('"level":50'))
                  .slice(-1)[0]
              : r.text,
          ).toBe(200);
          const want = compute(stored, q, asOf);
          const got = r.body.points.map(
            (p: { bucket: string | null; key: string | null; value: number; sample_count: number }) => ({
              bucket: p.bucket,
              key: p.key,
              value: p.value,
              sample_count: p.sample_count,
            }),
          );
          expect(got.length, JSON.stringify({ q, got, want })).toBe(want.points.length);
          got.forEach((p: { value: number }, i: number) => {
            const w = want.points[i]!;
            expect({ ...p, value: 0 }, JSON.stringify({ q, got, want })).toEqual({ ...w, value: 0 });
            expect(p.value).toBeCloseTo(w.value, 6);
          });
          expect(r.body.truncated).toBe(want.truncated);
        }
      }),
      { numRuns: Number(process.env.ANALYTICS_RUNS ?? 150) },
    );
  }, 240_000);
});
