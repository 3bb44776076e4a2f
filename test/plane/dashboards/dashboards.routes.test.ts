import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startPlane, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { createUser, lastAudit, tenants, unique, type Tenants } from '../inventory.helpers.js';

// Dashboards and widgets (document 2 "Dashboards and widgets", document 4 §11): every route,
// default, error code, the visibility and audience rules, revision locking and the limits.

const DEF = { period: 'last_24h', measure: 'count_events', group_by: 'detector' };

describe('analytics dashboards and widgets', () => {
  let t: TestPlane;
  let x: Tenants;
  let viewer: { id: string; client: Client };
  const dash = (c: Client, body: Record<string, unknown>) =>
    c.post('/api/v1/analytics-dashboards', { name: unique('dash'), ...body });
  const widget = (c: Client, id: string, body: Record<string, unknown>) =>
    c.post(`/api/v1/analytics-dashboards/${id}/widgets`, {
      title: 'w',
      visualization: 'bar',
      inline_definition: DEF,
      ...body,
    });

  beforeAll(async () => {
    t = await startPlane();
    x = await tenants(t);
    viewer = await createUser(t, x.a.admin, { login: unique('viewer'), name: 'Viewer', role: 'user' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates with the defaults of document 2, audited; reads it with widgets and audience_users', async () => {
    const r = await dash(x.a.admin, {});
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      org_id: x.a.orgId,
      description: '',
      timezone: 'UTC',
      default_period: 'today',
      live_enabled: true,
      visibility: 'org',
      audience_user_ids: [],
      revision: 1,
    });
    expect(await lastAudit(x.root, 'dashboard.create', r.body.id)).toMatchObject({
      action: 'dashboard.create',
      object_id: r.body.id,
    });
    const full = await x.a.operator.get(`/api/v1/analytics-dashboards/${r.body.id}`);
    expect(full.status, full.text).toBe(200);
    expect(full.body).toMatchObject({ id: r.body.id, widgets: [], audience_users: [] });
    const users = await dash(x.a.admin, {
      visibility: 'users',
      audience_user_ids: [viewer.id],
      timezone: 'Europe/Berlin',
      default_period: 'week',
      live_enabled: false,
      description: 'd',
    });
    expect(users.status, users.text).toBe(201);
    expect((await x.a.admin.get(`/api/v1/analytics-dashboards/${users.body.id}`)).body.audience_users).toEqual([
      expect.objectContaining({ id: viewer.id, name: 'Viewer' }),
    ]);
  });

  it.each([
    [{ name: '' }, 400, 'analytics_bad_name'],
    [{ name: 'x'.repeat(129) }, 400, 'analytics_bad_name'],
    [{ timezone: 'Nowhere/City' }, 400, 'analytics_bad_timezone'],
    [{ default_period: 'decade' }, 400, 'analytics_bad_period'],
    [{ visibility: 'public' }, 400, 'analytics_bad_visibility'],
    [{ visibility: 'users' }, 400, 'analytics_dashboard_audience_required'],
    [{ visibility: 'users', audience_user_ids: [] }, 400, 'analytics_dashboard_audience_required'],
    [
      { visibility: 'users', audience_user_ids: Array.from({ length: 65 }, () => randomUUID()) },
      400,
      'analytics_dashboard_audience_limit',
    ],
    [{ visibility: 'users', audience_user_ids: [randomUUID()] }, 400, 'analytics_dashboard_bad_audience'],
    [{ visibility: 'users', audience_user_ids: ['not-a-uuid'] }, 400, 'analytics_dashboard_bad_audience'],
  ])('create %j: %i %s', async (body, status, code) => {
    const r = await dash(x.a.admin, body);
    expect([r.status, r.body]).toEqual([status, { error: code }]);
  });

  it('refuses an audience of administrators or of another organisation, operators, foreign organisations and duplicate names', async () => {
    expect((await dash(x.a.admin, { visibility: 'users', audience_user_ids: [x.a.adminId] })).body).toEqual({
      error: 'analytics_dashboard_bad_audience',
    });
    expect((await dash(x.a.admin, { visibility: 'users', audience_user_ids: [x.b.operatorId] })).body).toEqual({
      error: 'analytics_dashboard_bad_audience',
    });
    expect((await dash(x.a.operator, {})).status).toBe(403);
    expect((await dash(x.a.admin, { org_id: x.b.orgId })).body).toEqual({ error: 'cross_org' });
    const name = unique('Same');
    expect((await dash(x.a.admin, { name })).status).toBe(201);
    expect((await dash(x.a.admin, { name: name.toLowerCase() })).body).toEqual({ error: 'already_exists' });
    expect((await dash(x.root, { org_id: x.b.orgId })).status).toBe(201);
  });

  it('lists by visibility: operators see org dashboards and those naming them, administrators all of theirs', async () => {
    const org = (await dash(x.a.admin, {})).body.id;
    const admins = (await dash(x.a.admin, { visibility: 'admins' })).body.id;
    const mine = (await dash(x.a.admin, { visibility: 'users', audience_user_ids: [x.a.operatorId] })).body.id;
    const theirs = (await dash(x.a.admin, { visibility: 'users', audience_user_ids: [viewer.id] })).body.id;
    const ids = async (c: Client, q = '') =>
      (await c.get(`/api/v1/analytics-dashboards${q}`)).body.rows.map((r: { id: string }) => r.id);
    const op = await ids(x.a.operator);
    expect(op).toEqual(expect.arrayContaining([org, mine]));
    expect(op).not.toContain(admins);
    expect(op).not.toContain(theirs);
    expect(await ids(x.a.admin)).toEqual(expect.arrayContaining([org, admins, mine, theirs]));
    expect(await ids(x.b.admin)).not.toContain(org);
    expect((await x.a.admin.get(`/api/v1/analytics-dashboards?org=${x.b.orgId}`)).body).toEqual({ error: 'cross_org' });
    expect(await ids(x.root, `?org=${x.a.orgId}`)).toEqual(expect.arrayContaining([org, admins, mine, theirs]));
    expect((await x.a.operator.get(`/api/v1/analytics-dashboards/${admins}`)).status).toBe(404);
  });

  it("PATCH needs the last revision; the visibility may not expose a widget's report", async () => {
    const d = (await dash(x.a.admin, { visibility: 'admins' })).body;
    const report = await x.a.admin.post('/api/v1/analytics-reports', {
      name: unique('r'),
      definition: DEF,
      visibility: 'admins',
    });
    expect(report.status, report.text).toBe(201);
    expect((await widget(x.a.admin, d.id, { report_id: report.body.id, inline_definition: undefined })).status).toBe(
      201,
    );
    expect((await x.a.admin.patch(`/api/v1/analytics-dashboards/${d.id}`, { revision: 7, name: 'x' })).body).toEqual({
      error: 'stale_revision',
    });
    const widen = await x.a.admin.patch(`/api/v1/analytics-dashboards/${d.id}`, { revision: 1, visibility: 'org' });
    expect([widen.status, widen.body]).toEqual([409, { error: 'analytics_dashboard_visibility' }]);
    const ok = await x.a.admin.patch(`/api/v1/analytics-dashboards/${d.id}`, {
      revision: 1,
      description: 'now',
      live_enabled: false,
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ revision: 2, description: 'now', live_enabled: false, visibility: 'admins' });
    expect(
      (await x.a.admin.patch(`/api/v1/analytics-dashboards/${d.id}`, { revision: 2, default_period: 'century' })).body,
    ).toEqual({ error: 'analytics_bad_period' });
    expect(await lastAudit(x.root, 'dashboard.update', d.id)).toMatchObject({ action: 'dashboard.update' });
    // the report cannot go while the widget shows it
    expect((await x.a.admin.del(`/api/v1/analytics-reports/${report.body.id}`)).body).toEqual({
      error: 'still_referenced',
    });
    const del = await x.a.admin.del(`/api/v1/analytics-dashboards/${d.id}`);
    expect(del.body).toEqual({ id: d.id, deleted: true });
    expect((await x.a.admin.get(`/api/v1/analytics-dashboards/${d.id}`)).status).toBe(404);
    expect((await x.a.admin.del(`/api/v1/analytics-reports/${report.body.id}`)).status).toBe(200);
  });

  it('widgets: every creation error, revision, rights through the dashboard, audit', async () => {
    const d = (await dash(x.a.admin, {})).body;
    const adminsReport = (
      await x.a.admin.post('/api/v1/analytics-reports', { name: unique('r'), definition: DEF, visibility: 'admins' })
    ).body.id;
    const foreignReport = (await x.b.admin.post('/api/v1/analytics-reports', { name: unique('r'), definition: DEF }))
      .body.id;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ report_id: adminsReport }, 'analytics_widget_source'],
      [{ inline_definition: undefined }, 'analytics_widget_source'],
      [{ inline_definition: null, report_id: randomUUID() }, 'analytics_report_not_found'],
      [{ inline_definition: null, report_id: foreignReport }, 'analytics_report_not_found'],
      [{ inline_definition: null, report_id: adminsReport }, 'analytics_report_visibility'],
      [{ visualization: 'pie' }, 'analytics_bad_visualization'],
      [{ options: [1] }, 'analytics_bad_options'],
      [{ layout: 'wide' }, 'analytics_bad_layout'],
      [{ position: -1 }, 'analytics_bad_position'],
      [{ position: 1.5 }, 'analytics_bad_position'],
      [{ title: '' }, 'analytics_bad_name'],
      [{ inline_definition: { measure: 'count_events' } }, 'analytics_bad_period'],
      [{ inline_definition: { ...DEF, top_limit: 500 } }, 'analytics_top_limit'],
    ];
    for (const [body, code] of cases) {
      const r = await widget(x.a.admin, d.id, body);
      expect([r.status, r.body], JSON.stringify(body)).toEqual([400, { error: code }]);
    }
    expect((await widget(x.a.admin, randomUUID(), {})).status).toBe(404);
    const w = await widget(x.a.admin, d.id, {
      options: { stacked: true },
      layout: { x: 0, y: 0, w: 4, h: 2 },
      position: 3,
    });
    expect(w.status, w.text).toBe(201);
    expect(w.body).toMatchObject({
      dashboard_id: d.id,
      report_id: null,
      inline_definition: DEF,
      visualization: 'bar',
      position: 3,
      revision: 1,
    });
    expect(await lastAudit(x.root, 'widget.create', w.body.id)).toMatchObject({ action: 'widget.create' });
    expect((await x.a.admin.patch(`/api/v1/analytics-widgets/${w.body.id}`, { revision: 2, title: 'x' })).body).toEqual(
      { error: 'stale_revision' },
    );
    expect(
      (await x.a.operator.patch(`/api/v1/analytics-widgets/${w.body.id}`, { revision: 1, title: 'x' })).status,
    ).toBe(403);
    expect((await x.b.admin.patch(`/api/v1/analytics-widgets/${w.body.id}`, { revision: 1, title: 'x' })).status).toBe(
      404,
    );
    const p = await x.a.admin.patch(`/api/v1/analytics-widgets/${w.body.id}`, {
      revision: 1,
      title: 'Renamed',
      visualization: 'line',
    });
    expect(p.body).toMatchObject({ title: 'Renamed', visualization: 'line', revision: 2 });
    const orgReport = (await x.a.admin.post('/api/v1/analytics-reports', { name: unique('r'), definition: DEF })).body
      .id;
    const swapped = await x.a.admin.patch(`/api/v1/analytics-widgets/${w.body.id}`, {
      revision: 2,
      report_id: orgReport,
    });
    expect(swapped.body).toMatchObject({ report_id: orgReport, inline_definition: null, revision: 3 });
    expect((await x.a.admin.del(`/api/v1/analytics-widgets/${w.body.id}`)).body).toEqual({
      id: w.body.id,
      deleted: true,
    });
    expect((await x.a.admin.del(`/api/v1/analytics-widgets/${w.body.id}`)).status).toBe(404);
  });

  it('holds at most 32 widgets (409 analytics_widget_limit)', async () => {
    const d = (await dash(x.a.admin, {})).body;
    for (let i = 0; i < 32; i++) expect((await widget(x.a.admin, d.id, { position: i })).status).toBe(201);
    expect((await widget(x.a.admin, d.id, {})).body).toEqual({ error: 'analytics_widget_limit' });
    expect(
      (await x.a.admin.get(`/api/v1/analytics-dashboards/${d.id}`)).body.widgets.map(
        (w: { position: number }) => w.position,
      ),
    ).toEqual(Array.from({ length: 32 }, (_, i) => i));
  });

  it("max_dashboards_reached at the organisation's limit", async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('quota') })).body.id;
    expect((await x.root.patch(`/api/v1/orgs/${org}`, { max_dashboards: 1 })).status).toBe(200);
    expect((await dash(x.root, { org_id: org })).status).toBe(201);
    expect((await dash(x.root, { org_id: org })).body).toEqual({ error: 'max_dashboards_reached' });
    expect((await x.root.get(`/api/v1/usage?org_id=${org}`)).body).toMatchObject({
      dashboards_count: 1,
      max_dashboards: 1,
    });
  });
});
