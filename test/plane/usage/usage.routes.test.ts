import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { cameraWorld, createUser, randomId, tenants, unique, PASSWORD, type Tenants } from '../inventory.helpers.js';
import { sendEvents, uploadAttachment } from '../fixtures.js';

// GET /api/v1/usage (document 1 "Quota usage", "Service endpoints"; document 4 §9).

const FIELDS = [
  'org_id',
  'org_name',
  'cameras_count',
  'max_cameras',
  'users_count',
  'max_users',
  'attachment_bytes',
  'attachment_quota_bytes',
  'sessions_count',
  'max_sessions_per_user',
  'dashboards_count',
  'max_dashboards',
  'reports_count',
  'max_reports',
  'tags_count',
  'max_tags',
  'event_templates_count',
  'max_event_templates',
  'agents_count',
  'max_agents',
  'agent_devices_count',
  'max_agent_devices',
  'agent_access_rules_count',
  'max_agent_access_rules',
  'events_count',
  'attachments_count',
];
const at = (i: number) => new Date(Date.now() - 3600_000 + i * 1000).toISOString();

describe('GET /api/v1/usage', () => {
  let t: TestPlane;
  let x: Tenants;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-usage-'));
    t = await startPlane({ config: { evidence: { backend: 'local', dir } } });
    x = await tenants(t);
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const usage = async (c: Client, q = '') => {
    const r = await c.get(`/api/v1/usage${q}`);
    expect(r.status, r.text).toBe(200);
    return r.body;
  };

  it('answers every field of the Resources table for a fresh organisation', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('fresh') })).body;
    const u = await usage(x.root, `?org_id=${org.id}`);
    expect(Object.keys(u).sort()).toEqual([...FIELDS].sort());
    expect(u).toEqual({
      ...Object.fromEntries(FIELDS.map((f) => [f, f.startsWith('max_') || f === 'attachment_quota_bytes' ? null : 0])),
      org_id: org.id,
      org_name: org.name,
    });
  });

  it("counts every resource the organisation's writes create and delete, and echoes its limits", async () => {
    const limits = {
      max_cameras: 5,
      max_users: 9,
      attachment_quota_bytes: 1_000_000,
      max_sessions_per_user: 4,
      max_dashboards: 2,
      max_reports: 3,
      max_tags: 7,
      max_event_templates: 6,
      max_agents: 1,
      max_agent_devices: 2,
      max_agent_access_rules: 3,
    };
    expect((await x.root.patch(`/api/v1/orgs/${x.a.orgId}`, limits)).status).toBe(200);
    const before = await usage(x.a.admin);
    // tenants(): an administrator and an operator, each signed in once
    expect(before).toMatchObject({
      org_id: x.a.orgId,
      users_count: 2,
      sessions_count: 2,
      cameras_count: 0,
      tags_count: 0,
    });

    const world = await cameraWorld(t, x);
    const cams = [await world.camera(x.a.admin), await world.camera(x.a.admin)];
    const tags = [];
    for (const n of ['t1', 't2', 't3']) tags.push((await x.a.admin.post('/api/v1/tags', { name: n })).body.id);
    expect((await x.a.admin.del(`/api/v1/tags/${tags[2]}`)).status).toBe(200);
    const tpl = await x.a.admin.post('/api/v1/templates', {
      name: unique('tpl'),
      doc: { detector_match: 'u.*', title: 'U' },
    });
    expect(tpl.status, tpl.text).toBe(201);
    const extra = await createUser(t, x.a.admin, { login: unique('extra'), role: 'user' });
    const mod = await world.moduleToken(x.a.admin);
    const refs = [await uploadAttachment(mod, 1000), await uploadAttachment(mod, 234)];
    await sendEvents(mod, [
      { detector: 'u.a', occurred_at: at(1), camera_id: cams[0], attachments: [refs[0]] },
      { detector: 'u.b', occurred_at: at(2) },
      { detector: 'u.c', occurred_at: at(3) },
    ]);
    await sendEvents(mod, [{ detector: 'u.d', occurred_at: at(4) }]);
    expect((await x.a.admin.del(`/api/v1/cameras/${cams[1]}`)).status).toBe(200);

    const u = await usage(x.a.admin);
    expect(u).toEqual({
      org_id: x.a.orgId,
      org_name: expect.any(String),
      cameras_count: 1,
      max_cameras: 5,
      users_count: 3,
      max_users: 9,
      attachment_bytes: 1234,
      attachment_quota_bytes: 1_000_000,
      sessions_count: 3,
      max_sessions_per_user: 4,
      dashboards_count: 0,
      max_dashboards: 2,
      reports_count: 0,
      max_reports: 3,
      tags_count: 2,
      max_tags: 7,
      event_templates_count: 1,
      max_event_templates: 6,
      // no agents in this release: 0 and null whatever the organisation's row says (document 4 §9)
      agents_count: 0,
      max_agents: null,
      agent_devices_count: 0,
      max_agent_devices: null,
      agent_access_rules_count: 0,
      max_agent_access_rules: null,
      events_count: 4,
      attachments_count: 2,
    });
    // the other organisation is untouched
    expect(await usage(x.b.admin)).toMatchObject({ cameras_count: 0, tags_count: 0, events_count: 0, users_count: 2 });

    // a user moved to another organisation counts there (its sessions are revoked by the move)
    expect((await x.root.patch(`/api/v1/users/${extra.id}`, { org_id: x.b.orgId })).status).toBe(200);
    expect(await usage(x.a.admin)).toMatchObject({ users_count: 2, sessions_count: 2 });
    expect(await usage(x.b.admin)).toMatchObject({ users_count: 3, sessions_count: 2 });
    // a user deleted takes its sessions with it
    expect((await x.root.del(`/api/v1/users/${extra.id}`)).status).toBe(200);
    expect(await usage(x.b.admin)).toMatchObject({ users_count: 2, sessions_count: 2 });
  });

  it('sessions_count: logins add, logout and revocation remove, expiry counts at once and after the job', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('sess') })).body;
    const name = unique('sa');
    const admin = await createUser(t, x.root, { login: name, role: 'admin', org_id: org.id });
    const second = await login(t.plane.app, { login: name, password: PASSWORD });
    expect((await usage(admin.client)).sessions_count).toBe(2);
    expect((await second.post('/api/v1/auth/logout', {})).status).toBeLessThan(300);
    expect((await usage(admin.client)).sessions_count).toBe(1);
    const third = await login(t.plane.app, { login: name, password: PASSWORD });
    expect((await usage(admin.client)).sessions_count).toBe(2);

    // one session expires: the read leaves it out before the expiry job has run ...
    const db = t.db.database.db;
    await sql`update sessions set expires_at = now() - interval '1 second'
      where id = (select id from sessions where user_id = ${admin.id} and revoked_at is null order by created_at limit 1)`.execute(
      db,
    );
    expect((await usage(third)).sessions_count).toBe(1);
    // ... and after it, from the counter itself
    const auth = t.plane.services.auth;
    await t.plane.services.jobs.runOnce(auth.sessionExpiryJob());
    const counter = await sql<{
      n: string;
    }>`select coalesce(sum(sessions), 0) as n from org_usage_counters where org_id = ${org.id}`.execute(db);
    expect(Number(counter.rows[0]!.n)).toBe(1);
    expect((await usage(third)).sessions_count).toBe(1);
    expect(await auth.expiredUncounted(org.id)).toBe(0);
  });

  it('defaults to the own organisation; a superadmin may name any', async () => {
    expect((await usage(x.b.admin)).org_id).toBe(x.b.orgId);
    expect((await usage(x.b.admin, `?org_id=${x.b.orgId}`)).org_id).toBe(x.b.orgId);
    expect((await usage(x.root, `?org_id=${x.b.orgId}`)).org_id).toBe(x.b.orgId);
    const own = (await x.root.get('/api/v1/auth/me')).body.user.org_id;
    expect((await usage(x.root)).org_id).toBe(own);
  });

  it('403 forbidden for another organisation (existing or not), 404 not_found for a superadmin naming none', async () => {
    expect(await x.a.admin.get(`/api/v1/usage?org_id=${x.b.orgId}`)).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
    expect(await x.a.admin.get(`/api/v1/usage?org_id=${randomId()}`)).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
    expect(await x.root.get(`/api/v1/usage?org_id=${randomId()}`)).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });
    // a deleted organisation is gone at once
    const org = (await x.root.post('/api/v1/orgs', { name: unique('gone') })).body;
    expect((await x.root.del(`/api/v1/orgs/${org.id}`)).status).toBe(200);
    expect(await x.root.get(`/api/v1/usage?org_id=${org.id}`)).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });
  });

  it('is for administrators: an operator is refused, an anonymous caller is 401', async () => {
    const r = await x.a.operator.get('/api/v1/usage');
    expect(r.status).toBe(403);
    expect((await x.anon.get('/api/v1/usage')).status).toBe(401);
  });

  it('400 for a malformed org_id or an unknown parameter', async () => {
    expect((await x.root.get('/api/v1/usage?org_id=nope')).status).toBe(400);
    expect(await x.root.get('/api/v1/usage?org=x')).toMatchObject({ status: 400, body: { error: 'unknown_field' } });
  });
});
