import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { freshDatabase, startPlane, type TestDb, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { SseReader } from '../sse-client.js';
import { tenants, unique, lastAudit, type Tenants } from '../inventory.helpers.js';
import { LocalEvidenceStorage } from '../../../src/plane/evidence/evidence.storage.js';
import { sendEvents, uploadAttachment } from '../fixtures.js';

// Archive cleanup of an organisation: DELETE /api/v1/orgs/{id} of an organisation that has no
// users, cameras or tags left but still holds event history.

const live = { globalCapacity: 64, perPrincipal: 32, heartbeatMs: 60_000, ringSize: 50, lagBytes: 1 << 20 };
const auth = (c: Client) => ({ authorization: `Bearer ${c.token}` });
const at = (i: number) => new Date(Date.now() - 3600_000 + i * 1000).toISOString();

const send = sendEvents;
const upload = (mod: Client, size: number) => uploadAttachment(mod, size, 3);
async function poll(root: Client, id: string, done: (job: any) => boolean, ms = 15_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await root.get(`/api/v1/cleanup-jobs/${id}`);
    expect(r.status, r.text).toBe(200);
    if (done(r.body)) return r.body;
    if (Date.now() > deadline) throw new Error(`cleanup job ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}
const finished = (root: Client, id: string) => poll(root, id, (j) => j.finished_at !== null);
async function files(dir: string, orgId: string): Promise<string[]> {
  try { return (await readdir(join(dir, orgId), { recursive: true, withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name); }
  catch { return []; }
}
async function rowsOf(db: TestDb, orgId: string) {
  const count = async (q: ReturnType<typeof sql<{ n: number }>>) => Number((await q.execute(db.database.db)).rows[0]!.n);
  return {
    orgs: await count(sql`select count(*)::int as n from orgs where id = ${orgId}`),
    events: await count(sql`select count(*)::int as n from events where org_id = ${orgId}`),
    attachments: await count(sql`select count(*)::int as n from attachments where org_id = ${orgId}`),
    module_tokens: await count(sql`select count(*)::int as n from module_tokens where org_id = ${orgId}`),
    templates: await count(sql`select count(*)::int as n from event_templates where org_id = ${orgId}`),
    usage: await count(sql`select count(*)::int as n from org_evidence_usage where org_id = ${orgId}`),
  };
}

/** An organisation with a module token, and a node for cameras. */
async function archiveOrg(root: Client, app: TestPlane['plane']['app']) {
  const org = (await root.post('/api/v1/orgs', { name: unique('archived') })).body;
  const tok = await root.post('/api/v1/module-tokens', { name: unique('m'), org_id: org.id, rate_limit: 1_000_000 });
  expect(tok.status, tok.text).toBe(201);
  return { org, mod: new Client(app, tok.body.secret) };
}

describe('DELETE /api/v1/orgs/{id} with event history: archive cleanup', () => {
  let t: TestPlane;
  let x: Tenants;
  let dir: string;
  let base: string;
  let node: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-archive-'));
    t = await startPlane({ config: { evidence: { backend: 'local', dir }, live } });
    base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
    x = await tenants(t);
    node = (await x.root.post('/api/v1/nodes', { name: unique('n'), url: 'http://127.0.0.1:9', api_token: 'node-write-token-123456' })).body.id;
  });
  afterAll(async () => { await t?.close(); await rm(dir, { recursive: true, force: true }); });

  it('keeps 409 org_not_empty while users, cameras or tags are left', async () => {
    const { org, mod } = await archiveOrg(x.root, t.plane.app);
    await send(mod, [{ detector: 'keep', occurred_at: at(0) }]);
    const tag = (await x.root.post('/api/v1/tags', { name: 't', org_id: org.id })).body.id;
    const cam = (await x.root.post('/api/v1/cameras', { name: unique('c'), node_id: node, org_id: org.id, main_source: 'rtsp://10.0.0.1/a' })).body.id;
    const user = (await x.root.post('/api/v1/users', { login: unique('u'), password: 'pw-long-enough-1', role: 'user', org_id: org.id })).body.id;
    for (const [path, id] of [['users', user], ['cameras', cam], ['tags', tag]] as const) {
      const r = await x.root.del(`/api/v1/orgs/${org.id}`);
      expect([r.status, r.body]).toEqual([409, { error: 'org_not_empty' }]);
      expect((await x.root.del(`/api/v1/${path}/${id}`)).status).toBe(200);
    }
    // nothing was queued by the refusals
    const jobs = await sql<{ n: number }>`select count(*)::int as n from cleanup_jobs where org_id = ${org.id}`.execute(t.db.database.db);
    expect(jobs.rows[0]!.n).toBe(0);
    const r = await x.root.del(`/api/v1/orgs/${org.id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.cleanup_job_id).toEqual(expect.any(String));
    await finished(x.root, r.body.cleanup_job_id);
  });

  it('deletes at once for every read, queues a cleanup job of kind archive (audited) and removes history, bytes and the row', async () => {
    const { org, mod } = await archiveOrg(x.root, t.plane.app);
    const tpl = await x.root.post('/api/v1/templates', { name: unique('tpl'), org_id: org.id, doc: { detector_match: 'arc.*', title: 'Arc' } });
    expect(tpl.status, tpl.text).toBe(201);
    const cam = (await x.root.post('/api/v1/cameras', { name: unique('c'), node_id: node, org_id: org.id, main_source: 'rtsp://10.0.0.1/a' })).body.id;
    const refs = [await upload(mod, 1000), await upload(mod, 2000), await upload(mod, 300)];
    const ids = await send(mod, [
      { detector: 'arc.plate', occurred_at: at(1), camera_id: cam, severity: 'info', attachments: [refs[0], refs[1]], ext_id: 'e1' },
      { detector: 'arc.plate', occurred_at: at(2), camera_id: cam, severity: 'debug' },
      { detector: 'arc.motion', occurred_at: at(3), severity: 'warning', interval: true },
    ]);
    expect((await x.root.post(`/api/v1/events/${ids[0]}/star`)).status).toBe(200);
    expect((await x.root.del(`/api/v1/cameras/${cam}`)).status).toBe(200);
    expect(await files(dir, org.id)).toHaveLength(3); // refs[2] is never referenced by an event
    const otherEvent = (await send(new Client(t.plane.app, (await x.a.admin.post('/api/v1/module-tokens', { name: unique('m') })).body.secret),
      [{ detector: 'arc.plate', occurred_at: at(1) }]))[0];

    const r = await x.root.del(`/api/v1/orgs/${org.id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ id: org.id, deleted: true, cleanup_job_id: expect.any(String) });
    const jobId = r.body.cleanup_job_id as string;
    const preview = { events: 3, attachments: 3, attachment_bytes: 3300 };
    const audit = await lastAudit(x.root, 'org.delete', org.id);
    expect(audit).toMatchObject({ action: 'org.delete', object_type: 'org', object_id: org.id, object_name: org.name, org_id: org.id });
    expect(audit.params).toEqual({ cleanup_job_id: jobId, revoked_modules: 1, preview });

    // gone at once: lists, writes, a second delete; its module token is refused; its name is free
    expect((await x.root.get('/api/v1/orgs')).body.rows.map((o: any) => o.id)).not.toContain(org.id);
    expect((await x.root.patch(`/api/v1/orgs/${org.id}`, { name: 'back' })).status).toBe(404);
    expect((await x.root.del(`/api/v1/orgs/${org.id}`)).body).toEqual({ error: 'not_found' });
    expect((await x.root.post('/api/v1/tags', { name: 'late', org_id: org.id })).body).toEqual({ error: 'unknown_org' });
    expect((await x.root.post('/api/v1/module-tokens', { name: 'late', org_id: org.id })).body).toEqual({ error: 'unknown_org' });
    expect((await mod.post('/api/v1/events', { events: [{ detector: 'late', occurred_at: at(4) }] })).status).toBe(401);
    const again = await x.root.post('/api/v1/orgs', { name: org.name });
    expect(again.status, again.text).toBe(201);

    const job = await finished(x.root, jobId);
    expect(job).toEqual({
      id: jobId, kind: 'archive', org_id: org.id, state: 'finished', preview, progress: { events: 3, attachments: 3 },
      created_at: expect.any(String), finished_at: expect.any(String), last_error: null,
    });
    expect(await rowsOf(t.db, org.id)).toEqual({ orgs: 0, events: 0, attachments: 0, module_tokens: 0, templates: 0, usage: 0 });
    expect(await files(dir, org.id)).toEqual([]);
    for (const ref of refs) expect((await x.root.get(`/api/v1/attachments/${ref}`)).status).toBe(410);
    for (const id of ids) expect((await x.root.get(`/api/v1/events/${id}`)).body).toEqual({ error: 'archived_data_expired' });
    // another organisation's history and the organisation of the same name are untouched
    expect((await x.a.admin.get(`/api/v1/events/${otherEvent}`)).status).toBe(200);
    expect((await x.root.patch(`/api/v1/orgs/${again.body.id}`, { max_users: 1 })).status).toBe(200);
  });

  it('an organisation without history (only module tokens and templates) goes at once, without a job', async () => {
    const { org, mod } = await archiveOrg(x.root, t.plane.app);
    expect((await x.root.post('/api/v1/templates', { name: unique('tpl'), org_id: org.id, doc: { detector_match: 'x' } })).status).toBe(201);
    const r = await x.root.del(`/api/v1/orgs/${org.id}`);
    expect(r.body).toEqual({ id: org.id, deleted: true, cleanup_job_id: null });
    expect((await lastAudit(x.root, 'org.delete', org.id)).params).toEqual({ cleanup_job_id: null, revoked_modules: 1 });
    expect(await rowsOf(t.db, org.id)).toEqual({ orgs: 0, events: 0, attachments: 0, module_tokens: 0, templates: 0, usage: 0 });
    expect((await mod.post('/api/v1/events', { events: [{ detector: 'late', occurred_at: at(4) }] })).status).toBe(401);
  });

  it('removes the rows from open streams with tombstones', async () => {
    // the purge day is set by an earlier removal today, so this one does not end the stream
    const { org, mod } = await archiveOrg(x.root, t.plane.app);
    const ids = await send(mod, [{ detector: 'tomb', occurred_at: at(5) }, { detector: 'tomb', occurred_at: at(6), severity: 'debug' }]);
    const cursor = (await x.root.get('/api/v1/events?limit=1')).body.stream_cursor as string;
    expect(cursor).toMatch(/^d\d{8}:\d+$/);
    const s = await SseReader.open(`${base}/api/v1/events/stream`, { ...auth(x.root), 'last-event-id': cursor });
    const r = await x.root.del(`/api/v1/orgs/${org.id}`);
    await finished(x.root, r.body.cleanup_job_id);
    await s.until((st) => st.events.filter((e) => e.data.deleted).length >= 2);
    const tombs = s.events.filter((e) => e.data.deleted);
    expect(tombs.map((e) => e.data.id).sort()).toEqual([...ids].sort());
    expect(tombs[0]!.data).toMatchObject({ deleted: true, org_id: org.id });
    expect(s.ended).toBe(false);
    s.close();
  });

  it('the cleanup job is for the superadmin only: administrators of any organisation get 403', async () => {
    const { org, mod } = await archiveOrg(x.root, t.plane.app);
    await send(mod, [{ detector: 'sa', occurred_at: at(7) }]);
    const jobId = (await x.root.del(`/api/v1/orgs/${org.id}`)).body.cleanup_job_id;
    for (const c of [x.a.admin, x.b.admin, x.a.operator]) {
      const g = await c.get(`/api/v1/cleanup-jobs/${jobId}`);
      expect([g.status, g.body]).toEqual([403, { error: 'forbidden' }]);
      expect((await c.del(`/api/v1/orgs/${x.b.orgId}`)).status).toBe(403);
    }
    await finished(x.root, jobId);
  });
});

/** Local storage whose deletes fail while `failing` is set after `allowed` more deletes. */
class FlakyStorage extends LocalEvidenceStorage {
  allowed = Infinity;
  override async delete(key: string): Promise<void> {
    if (this.allowed <= 0) throw new Error('evidence storage unavailable');
    this.allowed--;
    return super.delete(key);
  }
}

describe('archive cleanup: failure and restart', () => {
  let db: TestDb;
  let dir: string;
  beforeAll(async () => { db = await freshDatabase(); dir = await mkdtemp(join(tmpdir(), 'argus-archive-r-')); });
  afterAll(async () => { await db?.drop(); await rm(dir, { recursive: true, force: true }); });

  it('a failed batch leaves last_error and its progress; another process started later resumes and finishes', async () => {
    const storage = new FlakyStorage(dir);
    const one = await startPlane({ db, evidenceStorage: storage, config: { evidence: { backend: 'local', dir }, live } });
    let orgId: string, jobId: string, refs: string[];
    try {
      const root = await login(one.plane.app);
      const { org, mod } = await archiveOrg(root, one.plane.app);
      orgId = org.id;
      refs = [await upload(mod, 100), await upload(mod, 200), await upload(mod, 400)];
      await send(mod, [
        { detector: 'r', occurred_at: at(1), attachments: [refs[0]] },
        { detector: 'r', occurred_at: at(2), attachments: [refs[1]] },
        { detector: 'r', occurred_at: at(3) },
      ]);
      one.plane.services.events.archive.batch = 1;
      storage.allowed = 2; // one attachment: its bytes and its preview
      const r = await root.del(`/api/v1/orgs/${org.id}`);
      expect(r.status, r.text).toBe(200);
      jobId = r.body.cleanup_job_id;
      const failed = await poll(root, jobId, (j) => j.last_error !== null);
      expect(failed).toMatchObject({ kind: 'archive', state: 'queued', progress: {}, finished_at: null, last_error: 'evidence storage unavailable' });
      const done = await sql<{ a: number; e: number }>`select deleted_attachments::int as a, deleted_events::int as e from cleanup_jobs where id = ${jobId}`.execute(db.database.db);
      expect(done.rows[0]).toEqual({ a: 1, e: 0 });
      expect(await files(dir, org.id)).toHaveLength(2);
      // the organisation stays deleted for every read while its cleanup waits
      expect((await root.get('/api/v1/orgs')).body.rows.map((o: any) => o.id)).not.toContain(org.id);
    } finally {
      await one.close();
    }
    const two = await startPlane({ db, config: { evidence: { backend: 'local', dir }, live } });
    try {
      const root = await login(two.plane.app);
      const job = await finished(root, jobId!);
      expect(job).toMatchObject({ state: 'finished', progress: { events: 3, attachments: 3 }, last_error: null });
      expect(await rowsOf(db, orgId!)).toEqual({ orgs: 0, events: 0, attachments: 0, module_tokens: 0, templates: 0, usage: 0 });
      expect(await files(dir, orgId!)).toEqual([]);
      await expect(stat(join(dir, orgId!))).resolves.toBeDefined(); // directories stay; files are gone
    } finally {
      await two.close();
    }
  });

  it('two processes running the same job at once remove everything exactly once', async () => {
    const one = await startPlane({ db, config: { evidence: { backend: 'local', dir }, live } });
    const two = await startPlane({ db, config: { evidence: { backend: 'local', dir }, live } });
    try {
      const root = await login(one.plane.app);
      const { org, mod } = await archiveOrg(root, one.plane.app);
      const refs = await Promise.all([1, 2, 3, 4, 5].map((i) => upload(mod, 100 * i)));
      await send(mod, Array.from({ length: 40 }, (_, i) => ({ detector: 'pair', occurred_at: at(i), attachments: i < 5 ? [refs[i]] : [] })));
      for (const p of [one, two]) p.plane.services.events.archive.batch = 3;
      const r = await root.del(`/api/v1/orgs/${org.id}`);
      await two.plane.services.events.archive.runQueued(Date.now() + 20_000);
      const job = await finished(root, r.body.cleanup_job_id);
      expect(job).toMatchObject({ preview: { events: 40, attachments: 5, attachment_bytes: 1500 }, progress: { events: 40, attachments: 5 }, last_error: null });
      const tombs = await sql<{ n: number }>`select count(*)::int as n from event_tombstones where org_id = ${org.id}`.execute(db.database.db);
      expect(tombs.rows[0]!.n).toBe(40);
      expect(await rowsOf(db, org.id)).toEqual({ orgs: 0, events: 0, attachments: 0, module_tokens: 0, templates: 0, usage: 0 });
    } finally {
      await two.close();
      await one.close();
    }
  });
});
