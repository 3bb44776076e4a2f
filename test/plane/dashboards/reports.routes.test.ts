import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startPlane, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { cameraWorld, lastAudit, tenants, unique, type Tenants } from '../inventory.helpers.js';
import { sendEvents } from '../fixtures.js';

// Saved reports (document 4 §3, §11): definition rules, visibility, paging, revision, audit,
// quota, and /run over the period in a time zone, answering what the same query answers.

const DEF = { period: 'last_24h', measure: 'count_events', group_by: 'detector' };

describe('saved analytics reports', () => {
  let t: TestPlane;
  let x: Tenants;
  const report = (c: Client, body: Record<string, unknown>) =>
    c.post('/api/v1/analytics-reports', { name: unique('report'), definition: DEF, ...body });

  beforeAll(async () => {
    t = await startPlane();
    x = await tenants(t);
    const world = await cameraWorld(t, x);
    const cam = await world.camera(x.a.admin);
    const mod = await world.moduleToken(x.a.admin);
    const at = (i: number) => new Date(Date.now() - 3600_000 + i * 1000).toISOString();
    await sendEvents(mod, [
      { detector: 'person', camera_id: cam, occurred_at: at(1) },
      { detector: 'person', camera_id: cam, occurred_at: at(2) },
      { detector: 'car', camera_id: cam, occurred_at: at(3) },
    ]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('saves, reads, audits, and runs over its period as the query would answer', async () => {
    const r = await report(x.a.admin, {});
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      org_id: x.a.orgId,
      definition: DEF,
      visibility: 'org',
      audience_user_ids: [],
      revision: 1,
    });
    expect(await lastAudit(x.root, 'report.create', r.body.id)).toMatchObject({ action: 'report.create' });
    expect((await x.a.operator.get(`/api/v1/analytics-reports/${r.body.id}`)).body.id).toBe(r.body.id);
    const run = await x.a.admin.get(`/api/v1/analytics-reports/${r.body.id}/run?timezone=Europe/Berlin`);
    expect(run.status, run.text).toBe(200);
    expect(run.body).toMatchObject({ timezone: 'Europe/Berlin', measure: 'count_events', group_by: 'detector' });
    expect(Date.parse(run.body.to) - Date.parse(run.body.from)).toBe(86_400_000);
    expect(run.body.points.map((p: { key: string; value: number }) => [p.key, p.value])).toEqual([
      ['person', 2],
      ['car', 1],
    ]);
    // an operator runs it too, over the cameras it may see (none here)
    expect((await x.a.operator.get(`/api/v1/analytics-reports/${r.body.id}/run`)).body.points).toEqual([]);
    const direct = await x.a.admin.post('/api/v1/event-analytics/query', {
      from: run.body.from,
      to: run.body.to,
      timezone: 'Europe/Berlin',
      measure: 'count_events',
      group_by: 'detector',
    });
    expect(direct.body.points).toEqual(run.body.points);
    expect(direct.body.query_fingerprint).toBe(run.body.query_fingerprint);
    expect(
      (await x.a.operator.get(`/api/v1/analytics-reports/${r.body.id}/run?timezone=Atlantis/Capital`)).body,
    ).toEqual({ error: 'analytics_bad_timezone' });
    const today = await report(x.a.admin, { definition: { ...DEF, period: 'today', timezone: 'America/New_York' } });
    const ran = await x.a.admin.get(`/api/v1/analytics-reports/${today.body.id}/run`);
    expect(ran.body.timezone).toBe('America/New_York');
  });

  it.each([
    [{ name: '' }, 'analytics_bad_name'],
    [{ definition: { measure: 'count_events' } }, 'analytics_bad_period'],
    [{ definition: { ...DEF, period: 'forever' } }, 'analytics_bad_period'],
    [{ definition: { ...DEF, from: '2026-01-01T00:00:00Z' } }, 'bad_request'],
    [{ definition: { ...DEF, top_limit: 0 } }, 'analytics_top_limit'],
    [{ definition: { ...DEF, measure: 'field_sum' } }, 'analytics_field_required'],
    [
      { definition: { ...DEF, measure: 'field_sum', measure_field: { template_id: randomUUID(), key: 'speed' } } },
      'analytics_field_not_found',
    ],
    [{ definition: 'count' }, 'bad_request'],
    [{ visibility: 'everyone' }, 'analytics_bad_visibility'],
    [{ visibility: 'users' }, 'analytics_dashboard_audience_required'],
  ])('create %j: 400 %s', async (body, code) => {
    const r = await report(x.a.admin, body);
    expect([r.status, r.body]).toEqual([400, { error: code }]);
  });

  it('visibility, paging, revision, deletion, rights', async () => {
    const admins = (await report(x.a.admin, { visibility: 'admins' })).body.id;
    const named = (await report(x.a.admin, { visibility: 'users', audience_user_ids: [x.a.operatorId] })).body.id;
    expect((await x.a.operator.get(`/api/v1/analytics-reports/${admins}`)).status).toBe(404);
    expect((await x.a.operator.get(`/api/v1/analytics-reports/${admins}/run`)).status).toBe(404);
    expect((await x.a.operator.get(`/api/v1/analytics-reports/${named}`)).status).toBe(200);
    expect((await x.b.admin.get(`/api/v1/analytics-reports/${named}`)).status).toBe(404);
    const opList = (await x.a.operator.get('/api/v1/analytics-reports')).body.rows.map((r: { id: string }) => r.id);
    expect(opList).toContain(named);
    expect(opList).not.toContain(admins);
    // pages of one, followed to the end, see each readable report once
    const seen: string[] = [];
    let next: string | null = null;
    do {
      const page = await x.a.admin.get(`/api/v1/analytics-reports?limit=1${next ? `&after=${next}` : ''}`);
      expect(page.status, page.text).toBe(200);
      seen.push(...page.body.rows.map((r: { id: string }) => r.id));
      next = page.body.next;
    } while (next);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining([admins, named]));
    expect((await x.a.admin.get(`/api/v1/analytics-reports?org=${x.b.orgId}`)).body).toEqual({ error: 'cross_org' });

    expect((await report(x.a.operator, {})).status).toBe(403);
    expect((await x.a.admin.patch(`/api/v1/analytics-reports/${named}`, { revision: 3, name: 'x' })).body).toEqual({
      error: 'stale_revision',
    });
    const p = await x.a.admin.patch(`/api/v1/analytics-reports/${named}`, {
      revision: 1,
      name: 'Renamed',
      definition: { ...DEF, period: 'week' },
    });
    expect(p.body).toMatchObject({ name: 'Renamed', revision: 2, definition: { period: 'week' } });
    expect(await lastAudit(x.root, 'report.update', named)).toMatchObject({ action: 'report.update' });
    // narrowing it under a dashboard that shows it to more people is refused
    const d = (
      await x.a.admin.post('/api/v1/analytics-dashboards', {
        name: unique('d'),
        visibility: 'users',
        audience_user_ids: [x.a.operatorId],
      })
    ).body.id;
    expect(
      (
        await x.a.admin.post(`/api/v1/analytics-dashboards/${d}/widgets`, {
          title: 't',
          visualization: 'kpi',
          report_id: named,
        })
      ).status,
    ).toBe(201);
    expect(
      (await x.a.admin.patch(`/api/v1/analytics-reports/${named}`, { revision: 2, visibility: 'admins' })).body,
    ).toEqual({ error: 'analytics_report_visibility' });
    expect((await x.a.admin.del(`/api/v1/analytics-reports/${named}`)).body).toEqual({ error: 'still_referenced' });
    expect((await x.a.admin.del(`/api/v1/analytics-reports/${admins}`)).body).toEqual({ id: admins, deleted: true });
    expect(await lastAudit(x.root, 'report.delete', admins)).toMatchObject({ action: 'report.delete' });
  });

  it("max_reports_reached at the organisation's limit, counted in usage", async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('quota') })).body.id;
    expect((await x.root.patch(`/api/v1/orgs/${org}`, { max_reports: 2 })).status).toBe(200);
    expect((await report(x.root, { org_id: org })).status).toBe(201);
    expect((await report(x.root, { org_id: org })).status).toBe(201);
    expect((await report(x.root, { org_id: org })).body).toEqual({ error: 'max_reports_reached' });
    expect((await x.root.get(`/api/v1/usage?org_id=${org}`)).body).toMatchObject({ reports_count: 2, max_reports: 2 });
  });
});
