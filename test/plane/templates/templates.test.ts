import { describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { lastAudit, unique } from '../inventory.helpers.js';
import { ok, t, templatesWorld, x } from './templates.helpers.js';

// Organisation and system templates, analytics_template_in_use and GET /api/v1/templates/{id}/matches;
// the template document's validation codes and limits: templates.validation.test.ts.
templatesWorld();

const SYS = {
  node: '00000000-0000-7000-8000-00000000a001',
  camera: '00000000-0000-7000-8000-00000000a002',
  storage: '00000000-0000-7000-8000-00000000a003',
};

describe('organisation templates', () => {
  it('create, read, list, change (version increases), delete; each change audited as template.*', async () => {
    const name = unique('plates');
    const c = await x.a.admin.post('/api/v1/templates', {
      name: `  ${name}  `,
      doc: ok({ title: 'Plate', extra: true }),
    });
    expect(c.status, c.text).toBe(201);
    expect(c.body).toEqual({
      id: expect.any(String),
      org_id: x.a.orgId,
      name,
      detector_match: 'lpr.*',
      version: 1,
      doc: ok({ title: 'Plate', extra: true }),
      system: false,
      enabled: true,
      unknown_fields: ['extra'],
      updated_at: expect.any(String),
    });
    const id = c.body.id;
    expect(await lastAudit(x.root, 'template.create', id)).toMatchObject({
      action: 'template.create',
      object_type: 'template',
      object_name: name,
    });
    expect((await x.a.admin.get(`/api/v1/templates/${id}`)).body).toEqual(c.body);

    const list = (await x.a.admin.get('/api/v1/templates')).body;
    expect(list.rows.map((r: any) => r.id)).toEqual(expect.arrayContaining([SYS.node, SYS.camera, SYS.storage, id]));
    expect(list.next).toBeNull();
    expect((await x.b.admin.get('/api/v1/templates')).body.rows.map((r: any) => r.id)).not.toContain(id);
    expect((await x.root.get(`/api/v1/templates?org=${x.b.orgId}`)).body.rows.map((r: any) => r.id)).not.toContain(id);
    expect((await x.root.get('/api/v1/templates')).body.rows.map((r: any) => r.id)).toContain(id);
    const page = (await x.a.admin.get('/api/v1/templates?limit=1')).body;
    expect(page.rows).toHaveLength(1);
    expect(page.next).toBe(page.rows[0].id);
    expect((await x.a.admin.get(`/api/v1/templates?org=${x.b.orgId}`)).body).toEqual({ error: 'cross_org' });
    // q is unused: accepted and ignored
    const withQ = await x.a.admin.get(`/api/v1/templates?q=${encodeURIComponent(`zz-${name}`)}`);
    expect([withQ.status, withQ.body]).toEqual([200, list]);
    for (const l of ['0', '501', 'x'])
      expect((await x.a.admin.get(`/api/v1/templates?limit=${l}`)).body, l).toEqual({ error: 'bad_limit' });
    expect((await x.a.admin.get(`/api/v1/templates?limit=500`)).body).toEqual(list);
    expect((await x.a.admin.get('/api/v1/templates?after=nope')).body).toEqual({ error: 'bad_cursor' });
    expect((await x.a.admin.get('/api/v1/templates?name=x')).body).toEqual({ error: 'unknown_field' });

    const p = await x.a.admin.patch(`/api/v1/templates/${id}`, {
      name: `${name}-2`,
      enabled: false,
      doc: { detector_match: 'lpr.plate', title: { en: 'Plate' } },
    });
    expect(p.status, p.text).toBe(200);
    expect(p.body).toMatchObject({
      name: `${name}-2`,
      enabled: false,
      version: 2,
      detector_match: 'lpr.plate',
      unknown_fields: [],
      doc: { detector_match: 'lpr.plate', title: { en: 'Plate' } },
    });
    expect((await lastAudit(x.root, 'template.update', id)).params).toMatchObject({
      changed: ['name', 'doc', 'enabled'],
      version: 2,
    });
    expect((await x.a.admin.patch(`/api/v1/templates/${id}`, { name: ' ' })).body).toEqual({ error: 'bad_name' });
    expect((await x.a.admin.patch(`/api/v1/templates/${id}`, { doc: { title: 'x' } })).body).toEqual({
      error: 'detector_match_required',
    });
    expect((await x.a.admin.patch(`/api/v1/templates/${id}`, { enabled: 'no' })).body).toEqual({
      error: 'bad_request',
    });

    const d = await x.a.admin.del(`/api/v1/templates/${id}`);
    expect([d.status, d.body]).toEqual([200, { id, deleted: true }]);
    expect((await lastAudit(x.root, 'template.delete', id)).object_name).toBe(`${name}-2`);
    expect((await x.a.admin.get(`/api/v1/templates/${id}`)).status).toBe(404);
  });

  it('names: bad_name, already_exists ignoring case; org_id: cross_org, a superadmin any', async () => {
    expect((await x.a.admin.post('/api/v1/templates', { name: '', doc: ok() })).body).toEqual({ error: 'bad_name' });
    expect((await x.a.admin.post('/api/v1/templates', { name: 'x'.repeat(129), doc: ok() })).body).toEqual({
      error: 'bad_name',
    });
    expect((await x.a.admin.post('/api/v1/templates', { name: 'a\u0001b', doc: ok() })).body).toEqual({
      error: 'bad_name',
    });
    expect((await x.a.admin.post('/api/v1/templates', { doc: ok() })).body).toEqual({ error: 'bad_name' });
    const name = unique('Dup');
    expect((await x.a.admin.post('/api/v1/templates', { name, doc: ok() })).status).toBe(201);
    expect((await x.a.admin.post('/api/v1/templates', { name: name.toUpperCase(), doc: ok() })).body).toEqual({
      error: 'already_exists',
    });
    expect((await x.b.admin.post('/api/v1/templates', { name, doc: ok() })).status).toBe(201);
    expect(
      (await x.a.admin.post('/api/v1/templates', { name: unique('n'), doc: ok(), org_id: x.b.orgId })).body,
    ).toEqual({ error: 'cross_org' });
    const s = await x.root.post('/api/v1/templates', { name: unique('n'), doc: ok(), org_id: x.b.orgId });
    expect([s.status, s.body.org_id, s.body.system]).toEqual([201, x.b.orgId, false]);
    expect((await x.a.admin.post('/api/v1/templates', { name: unique('n'), doc: ok(), system: true })).body).toEqual({
      error: 'unknown_field',
    });
  });

  it('max_event_templates_reached at the organisation limit', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('small') })).body.id;
    expect((await x.root.patch(`/api/v1/orgs/${org}`, { max_event_templates: 1 })).status).toBe(200);
    expect((await x.root.post('/api/v1/templates', { name: unique('one'), doc: ok(), org_id: org })).status).toBe(201);
    const r = await x.root.post('/api/v1/templates', { name: unique('two'), doc: ok(), org_id: org });
    expect([r.status, r.body]).toEqual([409, { error: 'max_event_templates_reached' }]);
  });

  it("rights: an operator gets 403; another organisation's template is 404 (get, patch, delete, matches)", async () => {
    const id = (await x.a.admin.post('/api/v1/templates', { name: unique('mine'), doc: ok() })).body.id;
    expect((await x.a.operator.get('/api/v1/templates')).status).toBe(403);
    for (const [m, u, b] of [
      ['GET', `/api/v1/templates/${id}`],
      ['PATCH', `/api/v1/templates/${id}`, { enabled: false }],
      ['DELETE', `/api/v1/templates/${id}`],
      ['GET', `/api/v1/templates/${id}/matches`],
    ] as const) {
      const r = await x.b.admin.req(m, u, b);
      expect([r.status, r.body], `${m} ${u}`).toEqual([404, { error: 'not_found' }]);
    }
    expect((await x.a.admin.get('/api/v1/templates/not-a-uuid')).status).toBe(404);
  });
});

describe('analytics_template_in_use', () => {
  it('a change that removes or changes a field a saved report uses, or a delete, is 409; other changes pass', async () => {
    const speed = { key: 'speed', source: '/speed', type: 'number' };
    const doc = ok({ fields: [speed, { key: 'lane', source: '/lane', type: 'number' }] });
    const id = (await x.a.admin.post('/api/v1/templates', { name: unique('used'), doc })).body.id;
    const report = await x.a.admin.post('/api/v1/analytics-reports', {
      name: unique('speed report'),
      definition: { period: 'today', measure: 'field_avg', measure_field: { template_id: id, key: 'speed' } },
    });
    expect(report.status, report.text).toBe(201);
    const changed = ok({
      fields: [
        { key: 'speed', source: '/speed', type: 'string' },
        { key: 'lane', source: '/lane', type: 'number' },
      ],
    });
    expect((await x.a.admin.patch(`/api/v1/templates/${id}`, { doc: changed })).body).toEqual({
      error: 'analytics_template_in_use',
    });
    expect((await x.a.admin.patch(`/api/v1/templates/${id}`, { doc: ok({ fields: [] }) })).status).toBe(409);
    const r = await x.a.admin.del(`/api/v1/templates/${id}`);
    expect([r.status, r.body]).toEqual([409, { error: 'analytics_template_in_use' }]);
    // lane is not in use; a rename touches no field
    expect(
      (await x.a.admin.patch(`/api/v1/templates/${id}`, { doc: ok({ title: 'x', fields: [speed] }) })).status,
    ).toBe(200);
    expect((await x.a.admin.patch(`/api/v1/templates/${id}`, { name: unique('renamed') })).status).toBe(200);
    expect((await x.a.admin.del(`/api/v1/analytics-reports/${report.body.id}`)).status).toBe(200);
    expect((await x.a.admin.del(`/api/v1/templates/${id}`)).status).toBe(200);
  });
});

describe('system templates', () => {
  it('ship for the three system detectors, visible to every administrator', async () => {
    const rows = (await x.b.admin.get('/api/v1/templates')).body.rows.filter((r: any) => r.system);
    expect(rows.map((r: any) => [r.id, r.detector_match, r.org_id])).toEqual([
      [SYS.node, 'system.node_unreachable', null],
      [SYS.camera, 'system.camera_offline', null],
      [SYS.storage, 'system.evidence_storage_pressure', null],
    ]);
    expect((await x.b.admin.get(`/api/v1/templates/${SYS.storage}`)).body).toMatchObject({
      system: true,
      enabled: true,
      name: 'Evidence storage pressure',
    });
  });

  it('only a superadmin overrides, and only title and ignore_event; never deleted', async () => {
    expect((await x.a.admin.patch(`/api/v1/templates/${SYS.storage}`, { doc: { title: 'x' } })).body).toEqual({
      error: 'system_template_superadmin_only',
    });
    expect((await x.a.admin.patch(`/api/v1/templates/${SYS.storage}`, { doc: { title: 'x' } })).status).toBe(403);
    const bad: Array<[unknown, string]> = [
      [{ enabled: false, doc: { title: 'x' } }, 'system_template_fields_readonly'],
      [{ name: 'Other', doc: { title: 'x' } }, 'system_template_fields_readonly'],
      [{ doc: { title: 'x', fields: [] } }, 'system_template_fields_readonly'],
      [{ doc: 'x' }, 'system_template_fields_readonly'],
      [{}, 'system_template_override_required'],
      [{ name: 'Evidence storage pressure' }, 'system_template_override_required'],
      [{ doc: { title: 7 } }, 'system_template_title_invalid'],
      [{ doc: { ignore_event: 'yes' } }, 'system_template_ignore_invalid'],
    ];
    for (const [body, code] of bad) {
      const r = await x.root.patch(`/api/v1/templates/${SYS.storage}`, body);
      expect([r.status, r.body], JSON.stringify(body)).toEqual([400, { error: code }]);
    }
    const r = await x.root.patch(`/api/v1/templates/${SYS.storage}`, {
      name: 'Evidence storage pressure',
      doc: { title: { en: 'Storage filling up' } },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      version: 2,
      system: true,
      doc: {
        title: { en: 'Storage filling up' },
        detector_match: 'system.evidence_storage_pressure',
        fields: expect.any(Array),
      },
    });
    expect((await lastAudit(x.root, 'template.update', SYS.storage)).params).toMatchObject({
      system: true,
      version: 2,
    });
    const d = await x.root.del(`/api/v1/templates/${SYS.storage}`);
    expect([d.status, d.body]).toEqual([409, { error: 'system_template_readonly' }]);
    expect((await x.a.admin.del(`/api/v1/templates/${SYS.storage}`)).body).toEqual({
      error: 'system_template_readonly',
    });
  });
});

describe('GET /api/v1/templates/{id}/matches', () => {
  it('detector ids of the last 7 days matching the mask, of the organisation', async () => {
    const mod = new Client(
      t.plane.app,
      (await x.a.admin.post('/api/v1/module-tokens', { name: unique('m') })).body.secret,
    );
    const now = Date.now();
    const items = [
      ['anpr.front', 1],
      ['anpr.rear', 2],
      ['anpr.front', 3],
      ['motion', 4],
      ['anprX', 5],
    ].map(([d, i]) => ({ detector: d, occurred_at: new Date(now - (i as number) * 60_000).toISOString() }));
    // the fixed 7-day window: one seen 6 days ago counts, one seen only 8 days ago does not
    const day = 86_400_000;
    items.push(
      { detector: 'anpr.week', occurred_at: new Date(now - 6 * day).toISOString() },
      { detector: 'anpr.old', occurred_at: new Date(now - 8 * day).toISOString() },
    );
    expect((await mod.post('/api/v1/events', { events: items })).status).toBe(200);
    const modB = new Client(
      t.plane.app,
      (await x.b.admin.post('/api/v1/module-tokens', { name: unique('m') })).body.secret,
    );
    await modB.post('/api/v1/events', {
      events: [{ detector: 'anpr.side', occurred_at: new Date(now).toISOString() }],
    });
    const id = (await x.a.admin.post('/api/v1/templates', { name: unique('anpr'), doc: { detector_match: 'anpr.*' } }))
      .body.id;
    const r = await x.a.admin.get(`/api/v1/templates/${id}/matches`);
    expect([r.status, r.body]).toEqual([
      200,
      { window_days: 7, detectors: ['anpr.front', 'anpr.rear', 'anpr.week'], distinct: 3 },
    ]);
    const exact = (await x.a.admin.post('/api/v1/templates', { name: unique('m'), doc: { detector_match: 'motion' } }))
      .body.id;
    expect((await x.a.admin.get(`/api/v1/templates/${exact}/matches`)).body).toEqual({
      window_days: 7,
      detectors: ['motion'],
      distinct: 1,
    });
    expect((await x.root.get(`/api/v1/templates/${id}/matches`)).body.detectors).toEqual([
      'anpr.front',
      'anpr.rear',
      'anpr.week',
    ]);
    expect((await x.a.admin.get(`/api/v1/templates/${id}/matches?org=${x.b.orgId}`)).body).toEqual({
      error: 'cross_org',
    });
    expect((await x.a.admin.get(`/api/v1/templates/${SYS.node}/matches`)).body).toEqual({
      window_days: 7,
      detectors: [],
      distinct: 0,
    });
  });
});
