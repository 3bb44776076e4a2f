import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { CANARY, startPlane, type TestPlane } from '../harness.js';
import { cameraWorld, lastAudit, tenants, unique, type Tenants } from '../inventory.helpers.js';

// Rules and channels (document 4 §13): every route, revision locking, rights, audit, the
// secret never shown nor audited, the SSRF rule of channel URLs, the delivery log and retry.

describe('notification rules and channels', () => {
  let t: TestPlane;
  let x: Tenants;
  const SECRET = `hook-${CANARY}-secret`;
  const hook = (c: Tenants['root'], body: Record<string, unknown> = {}) =>
    c.post('/api/v1/notification-channels', {
      name: unique('hook'),
      kind: 'webhook',
      url: 'http://127.0.0.1:9/hook',
      secret: SECRET,
      ...body,
    });

  beforeAll(async () => {
    t = await startPlane();
    x = await tenants(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates, reads, changes with the revision it read, and deletes a channel; the secret is never shown nor audited', async () => {
    const c = await hook(x.a.admin, { headers: { 'X-Team': 'ops' } });
    expect(c.status, c.text).toBe(201);
    expect(c.body).toMatchObject({
      org_id: x.a.orgId,
      kind: 'webhook',
      enabled: true,
      secret_configured: true,
      headers: { 'X-Team': 'ops' },
      revision: 1,
    });
    expect(c.text).not.toContain(CANARY);
    const got = await x.a.admin.get(`/api/v1/notification-channels/${c.body.id}`);
    expect(got.status).toBe(200);
    expect(got.text).not.toContain(CANARY);
    const list = await x.a.admin.get('/api/v1/notification-channels');
    expect(list.body.rows.map((r: { id: string }) => r.id)).toContain(c.body.id);
    expect(list.body.next).toBeNull();

    const stale = await x.a.admin.patch(`/api/v1/notification-channels/${c.body.id}`, { revision: 7, name: 'x' });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toBe('stale_revision');
    const renamed = await x.a.admin.patch(`/api/v1/notification-channels/${c.body.id}`, {
      revision: 1,
      name: 'renamed',
      secret: `${SECRET}-2`,
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'renamed', revision: 2, secret_configured: true });
    const kind = await x.a.admin.patch(`/api/v1/notification-channels/${c.body.id}`, { revision: 2, kind: 'email' });
    expect(kind.body.error).toBe('bad_channel_kind');

    const audit = await x.root.get(`/api/v1/audit?object_id=${c.body.id}&limit=10`);
    expect(audit.body.rows.map((r: { action: string }) => r.action).sort()).toEqual([
      'notification_channel.create',
      'notification_channel.update',
    ]);
    const stored = await sql<{
      secret_enc: string;
    }>`select secret_enc from notification_channels where id = ${c.body.id}::uuid`.execute(t.db.database.db);
    expect(stored.rows[0]!.secret_enc).not.toContain(CANARY);
    expect(JSON.stringify(audit.body)).not.toContain(CANARY);
    const full = await x.root.get(
      `/api/v1/audit/${audit.body.rows[0].id}?occurred_at=${audit.body.rows[0].occurred_at}`,
    );
    expect(full.text).not.toContain(CANARY);
    expect(t.logs.text).not.toContain(CANARY);

    const del = await x.a.admin.del(`/api/v1/notification-channels/${c.body.id}`);
    expect(del.body).toEqual({ id: c.body.id, deleted: true });
    expect(await lastAudit(x.root, 'notification_channel.delete', c.body.id)).toMatchObject({ object_id: c.body.id });
    expect((await x.a.admin.get(`/api/v1/notification-channels/${c.body.id}`)).status).toBe(404);
  });

  it.each([
    [{ kind: 'pager' }, 'bad_channel_kind'],
    [{ url: 'ftp://example.com/' }, 'bad_url'],
    [{ url: 'http://169.254.169.254/latest' }, 'target_refused'],
    [{ url: 'http://[::ffff:a9fe:a9fe]/' }, 'target_refused'],
    [{ url: 'http://metadata.google.internal/' }, 'target_refused'],
    [{ secret: undefined }, 'bad_channel_settings'],
    [{ headers: { 'X-Argus-Signature': 'forged' } }, 'bad_channel_settings'],
    [{ to: ['a@example.com'] }, 'bad_channel_settings'],
    [{ name: '' }, 'bad_name'],
    [{ colour: 'red' }, 'unknown_field'],
  ])('refuses a channel %j: %s', async (body, code) => {
    const r = await hook(x.a.admin, body);
    expect(r.status, r.text).toBe(400);
    expect(r.body.error).toBe(code);
  });

  it('takes email and mqtt channels with their own fields; the mqtt password is write-only', async () => {
    const mail = await x.a.admin.post('/api/v1/notification-channels', {
      name: unique('mail'),
      kind: 'email',
      to: ['ops@example.com'],
    });
    expect(mail.status, mail.text).toBe(201);
    expect(mail.body).toMatchObject({ kind: 'email', to: ['ops@example.com'] });
    const bad = await x.a.admin.post('/api/v1/notification-channels', { name: unique('mail'), kind: 'email', to: [] });
    expect(bad.body.error).toBe('bad_channel_settings');
    const mq = await x.a.admin.post('/api/v1/notification-channels', {
      name: unique('mq'),
      kind: 'mqtt',
      url: 'mqtt://mqtt.example', // stored only: nothing here connects to a broker
      topic: 'argus/{org}/{camera}',
      username: 'u',
      password: `mq-${CANARY}`,
    });
    expect(mq.status, mq.text).toBe(201);
    expect(mq.body).toMatchObject({ kind: 'mqtt', topic: 'argus/{org}/{camera}', password_configured: true, qos: 1 });
    expect(mq.text).not.toContain(CANARY);
    const cleared = await x.a.admin.patch(`/api/v1/notification-channels/${mq.body.id}`, {
      revision: 1,
      password: null,
    });
    expect(cleared.body.password_configured).toBe(false);
    const qos = await x.a.admin.patch(`/api/v1/notification-channels/${mq.body.id}`, { revision: 2, qos: 2 });
    expect(qos.body.error).toBe('bad_channel_settings');
  });

  it('rules: defaults, checks, revision, audit; a channel in use cannot be deleted', async () => {
    const world = await cameraWorld(t, x);
    const cam = await world.camera(x.a.admin);
    const ch = (await hook(x.a.admin)).body.id;
    const r = await x.a.admin.post('/api/v1/notification-rules', {
      name: unique('rule'),
      match: { detectors: ['person.*'], camera_ids: [cam] },
      channel_ids: [ch],
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      enabled: true,
      match: {
        detectors: ['person.*'],
        severity_min: 0,
        camera_ids: [cam],
        tag_ids: [],
        categories: [],
        open_only: false,
      },
      schedule: null,
      cooldown_secs: 0,
      suppressed_count: 0,
      channel_ids: [ch],
      revision: 1,
    });
    expect(await lastAudit(x.root, 'notification_rule.create', r.body.id)).toMatchObject({ org_id: x.a.orgId });
    const p = await x.a.admin.patch(`/api/v1/notification-rules/${r.body.id}`, {
      revision: 1,
      cooldown_secs: 60,
      schedule: { timezone: 'Europe/Berlin', windows: [{ days: [1, 2, 3, 4, 5], from: '22:00', to: '06:00' }] },
    });
    expect(p.status, p.text).toBe(200);
    expect(p.body).toMatchObject({ revision: 2, cooldown_secs: 60, schedule: { timezone: 'Europe/Berlin' } });
    expect(
      (await x.a.admin.patch(`/api/v1/notification-rules/${r.body.id}`, { revision: 1, enabled: false })).body.error,
    ).toBe('stale_revision');
    const used = await x.a.admin.del(`/api/v1/notification-channels/${ch}`);
    expect(used.status).toBe(409);
    expect(used.body.error).toBe('still_referenced');
    expect((await x.a.admin.del(`/api/v1/notification-rules/${r.body.id}`)).status).toBe(200);
    expect(await lastAudit(x.root, 'notification_rule.delete', r.body.id)).toBeDefined();
    expect((await x.a.admin.del(`/api/v1/notification-channels/${ch}`)).status).toBe(200);
  });

  it.each([
    [{ match: { severity_min: 5 } }, 'bad_match'],
    [{ match: { detectors: ['a*b'] } }, 'bad_match'],
    [{ match: { categories: ['other'] } }, 'bad_match'],
    [{ match: { camera_ids: ['00000000-0000-4000-8000-000000000000'] } }, 'unknown_camera'],
    [{ match: { tag_ids: ['00000000-0000-4000-8000-000000000000'] } }, 'unknown_tag'],
    [{ schedule: { timezone: 'Mars/Base', windows: [{ days: [1], from: '08:00', to: '17:00' }] } }, 'bad_schedule'],
    [{ schedule: { timezone: 'UTC', windows: [{ days: [8], from: '08:00', to: '17:00' }] } }, 'bad_schedule'],
    [{ schedule: { timezone: 'UTC', windows: [{ days: [1], from: '08:00', to: '08:00' }] } }, 'bad_schedule'],
    [{ cooldown_secs: 86_401 }, 'bad_cooldown'],
    [{ channel_ids: [] }, 'bad_channel_ids'],
    [{ channel_ids: ['00000000-0000-4000-8000-000000000000'] }, 'unknown_channel'],
  ])('refuses a rule %j: %s', async (body, code) => {
    const ch = (await hook(x.a.admin)).body.id;
    const r = await x.a.admin.post('/api/v1/notification-rules', { name: unique('rule'), channel_ids: [ch], ...body });
    expect(r.status, r.text).toBe(400);
    expect(r.body.error).toBe(code);
  });

  it('rights: operators are refused, another organisation is absent or cross_org, a superadmin reaches any by org_id', async () => {
    const ch = (await hook(x.a.admin)).body.id;
    expect((await x.a.operator.get('/api/v1/notification-rules')).status).toBe(403);
    expect((await x.a.operator.get('/api/v1/notification-channels')).status).toBe(403);
    expect((await x.b.admin.get(`/api/v1/notification-channels/${ch}`)).status).toBe(404);
    expect((await x.b.admin.get(`/api/v1/notification-channels?org=${x.a.orgId}`)).body.error).toBe('cross_org');
    expect(
      (await x.b.admin.post('/api/v1/notification-rules', { name: 'r', channel_ids: [ch], org_id: x.a.orgId })).body
        .error,
    ).toBe('cross_org');
    // B's rule cannot name A's channel.
    expect((await x.b.admin.post('/api/v1/notification-rules', { name: 'r', channel_ids: [ch] })).body.error).toBe(
      'unknown_channel',
    );
    const byRoot = await x.root.post('/api/v1/notification-rules', {
      name: unique('r'),
      channel_ids: [ch],
      org_id: x.a.orgId,
    });
    expect(byRoot.status, byRoot.text).toBe(201);
    expect(byRoot.body.org_id).toBe(x.a.orgId);
    expect((await x.root.get(`/api/v1/notification-rules/${byRoot.body.id}`)).status).toBe(200);
    const listed = await x.root.get(`/api/v1/notification-rules?org=${x.a.orgId}`);
    expect(listed.body.rows.every((r: { org_id: string }) => r.org_id === x.a.orgId)).toBe(true);
  });

  it('pages lists with after= and limit', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('paged') })).body.id;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await hook(x.root, { org_id: org })).body.id);
    const first = await x.root.get(`/api/v1/notification-channels?org=${org}&limit=2`);
    expect(first.body.rows.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 2));
    expect(first.body.next).toBe(ids[1]);
    const second = await x.root.get(`/api/v1/notification-channels?org=${org}&limit=2&after=${first.body.next}`);
    expect(second.body.rows.map((r: { id: string }) => r.id)).toEqual([ids[2]]);
    expect(second.body.next).toBeNull();
  });

  it('retry requeues only a dead delivery; test answers its delivery', async () => {
    // Nothing listens on port 9: the test message fails and is dead at once (docs/notifications.md).
    // The worker stays still, so the requeued delivery is seen pending.
    t.plane.services.notifications.stop();
    const ch = (await hook(x.a.admin)).body.id;
    const sent = await x.a.admin.post(`/api/v1/notification-channels/${ch}/test`);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({ channel_id: ch, rule_id: null, event_id: null, state: 'dead', attempts: 1 });
    expect(sent.body.last_error).toMatch(/could not be reached/);
    const log = await x.a.admin.get(`/api/v1/notification-deliveries?channel_id=${ch}&state=dead`);
    expect(log.body.rows.map((r: { id: string }) => r.id)).toEqual([sent.body.id]);
    expect((await x.b.admin.post(`/api/v1/notification-deliveries/${sent.body.id}/retry`)).status).toBe(404);
    const again = await x.a.admin.post(`/api/v1/notification-deliveries/${sent.body.id}/retry`);
    expect(again.status, again.text).toBe(200);
    expect(again.body.state).toBe('pending');
    const twice = await x.a.admin.post(`/api/v1/notification-deliveries/${sent.body.id}/retry`);
    expect(twice.status).toBe(409);
    expect(twice.body.error).toBe('delivery_not_dead');
  });
});
