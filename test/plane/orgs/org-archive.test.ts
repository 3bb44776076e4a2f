import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { SseReader } from '../sse-client.js';
import { tenants, unique, lastAudit, type Tenants } from '../inventory.helpers.js';
import { archiveOrg, at, files, finished, live, rowsOf, send, upload } from './org-archive.helpers.js';

// Archive cleanup of an organisation: DELETE /api/v1/orgs/{id} of an organisation that has no
// users, cameras or tags left but still holds event history.

const auth = (c: Client) => ({ authorization: `Bearer ${c.token}` });

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
    node = (
      await x.root.post('/api/v1/nodes', {
        name: unique('n'),
        url: 'http://127.0.0.1:9',
        api_token: 'node-write-token-123456',
      })
    ).body.id;
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps 409 org_not_empty while users, cameras or tags are left', async () => {
    const { org, mod } = await archiveOrg(x.root, t.plane.app);
    await send(mod, [{ detector: 'keep', occurred_at: at(0) }]);
    const tag = (await x.root.post('/api/v1/tags', { name: 't', org_id: org.id })).body.id;
    const cam = (
      await x.root.post('/api/v1/cameras', {
        name: unique('c'),
        node_id: node,
        org_id: org.id,
        main_source: 'rtsp://10.0.0.1/a',
      })
    ).body.id;
    const user = (
      await x.root.post('/api/v1/users', {
        login: unique('u'),
        password: 'pw-long-enough-1',
        role: 'user',
        org_id: org.id,
      })
    ).body.id;
    for (const [path, id] of [
      ['users', user],
      ['cameras', cam],
      ['tags', tag],
    ] as const) {
      const r = await x.root.del(`/api/v1/orgs/${org.id}`);
      expect([r.status, r.body]).toEqual([409, { error: 'org_not_empty' }]);
      expect((await x.root.del(`/api/v1/${path}/${id}`)).status).toBe(200);
    }
    // nothing was queued by the refusals
    const jobs = await sql<{ n: number }>`select count(*)::int as n from cleanup_jobs where org_id = ${org.id}`.execute(
      t.db.database.db,
    );
    expect(jobs.rows[0]!.n).toBe(0);
    const r = await x.root.del(`/api/v1/orgs/${org.id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.cleanup_job_id).toEqual(expect.any(String));
    await finished(x.root, r.body.cleanup_job_id);
  });

  it('deletes at once for every read, queues a cleanup job of kind archive (audited) and removes history, bytes and the row', async () => {
    const { org, mod } = await archiveOrg(x.root, t.plane.app);
    const tpl = await x.root.post('/api/v1/templates', {
      name: unique('tpl'),
      org_id: org.id,
      doc: { detector_match: 'arc.*', title: 'Arc' },
    });
    expect(tpl.status, tpl.text).toBe(201);
    const cam = (
      await x.root.post('/api/v1/cameras', {
        name: unique('c'),
        node_id: node,
        org_id: org.id,
        main_source: 'rtsp://10.0.0.1/a',
      })
    ).body.id;
    const refs = [await upload(mod, 1000), await upload(mod, 2000), await upload(mod, 300)];
    const ids = await send(mod, [
      {
        detector: 'arc.plate',
        occurred_at: at(1),
        camera_id: cam,
        severity: 'info',
        attachments: [refs[0], refs[1]],
        ext_id: 'e1',
      },
      { detector: 'arc.plate', occurred_at: at(2), camera_id: cam, severity: 'debug' },
      { detector: 'arc.motion', occurred_at: at(3), severity: 'warning', interval: true },
    ]);
    expect((await x.root.post(`/api/v1/events/${ids[0]}/star`)).status).toBe(200);
    expect((await x.root.del(`/api/v1/cameras/${cam}`)).status).toBe(200);
    expect(await files(dir, org.id)).toHaveLength(3); // refs[2] is never referenced by an event
    const otherEvent = (
      await send(
        new Client(t.plane.app, (await x.a.admin.post('/api/v1/module-tokens', { name: unique('m') })).body.secret),
        [{ detector: 'arc.plate', occurred_at: at(1) }],
      )
    )[0];

    const r = await x.root.del(`/api/v1/orgs/${org.id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ id: org.id, deleted: true, cleanup_job_id: expect.any(String) });
    const jobId = r.body.cleanup_job_id as string;
    const preview = { events: 3, attachments: 3, attachment_bytes: 3300 };
    const audit = await lastAudit(x.root, 'org.delete', org.id);
    expect(audit).toMatchObject({
      action: 'org.delete',
      object_type: 'org',
      object_id: org.id,
      object_name: org.name,
      org_id: org.id,
    });
    expect(audit.params).toEqual({ cleanup_job_id: jobId, revoked_modules: 1, preview });

    // gone at once: lists, writes, a second delete; its module token is refused; its name is free
    expect((await x.root.get('/api/v1/orgs')).body.rows.map((o: any) => o.id)).not.toContain(org.id);
    expect((await x.root.patch(`/api/v1/orgs/${org.id}`, { name: 'back' })).status).toBe(404);
    expect((await x.root.del(`/api/v1/orgs/${org.id}`)).body).toEqual({ error: 'not_found' });
    expect((await x.root.post('/api/v1/tags', { name: 'late', org_id: org.id })).body).toEqual({
      error: 'unknown_org',
    });
    expect((await x.root.post('/api/v1/module-tokens', { name: 'late', org_id: org.id })).body).toEqual({
      error: 'unknown_org',
    });
    expect((await mod.post('/api/v1/events', { events: [{ detector: 'late', occurred_at: at(4) }] })).status).toBe(401);
    const again = await x.root.post('/api/v1/orgs', { name: org.name });
    expect(again.status, again.text).toBe(201);

    const job = await finished(x.root, jobId);
    expect(job).toEqual({
      id: jobId,
      kind: 'archive',
      org_id: org.id,
      state: 'finished',
      preview,
      progress: { events: 3, attachments: 3 },
      created_at: expect.any(String),
      finished_at: expect.any(String),
      last_error: null,
    });
    expect(await rowsOf(t.db, org.id)).toEqual({
      orgs: 0,
      events: 0,
      attachments: 0,
      module_tokens: 0,
      templates: 0,
      usage: 0,
    });
    expect(await files(dir, org.id)).toEqual([]);
    for (const ref of refs) expect((await x.root.get(`/api/v1/attachments/${ref}`)).status).toBe(410);
    for (const id of ids)
      expect((await x.root.get(`/api/v1/events/${id}`)).body).toEqual({ error: 'archived_data_expired' });
    // another organisation's history and the organisation of the same name are untouched
    expect((await x.a.admin.get(`/api/v1/events/${otherEvent}`)).status).toBe(200);
    expect((await x.root.patch(`/api/v1/orgs/${again.body.id}`, { max_users: 1 })).status).toBe(200);
  });

  it('an organisation without history (only module tokens and templates) goes at once, without a job', async () => {
    const { org, mod } = await archiveOrg(x.root, t.plane.app);
    expect(
      (await x.root.post('/api/v1/templates', { name: unique('tpl'), org_id: org.id, doc: { detector_match: 'x' } }))
        .status,
    ).toBe(201);
    const r = await x.root.del(`/api/v1/orgs/${org.id}`);
    expect(r.body).toEqual({ id: org.id, deleted: true, cleanup_job_id: null });
    expect((await lastAudit(x.root, 'org.delete', org.id)).params).toEqual({
      cleanup_job_id: null,
      revoked_modules: 1,
    });
    expect(await rowsOf(t.db, org.id)).toEqual({
      orgs: 0,
      events: 0,
      attachments: 0,
      module_tokens: 0,
      templates: 0,
      usage: 0,
    });
    expect((await mod.post('/api/v1/events', { events: [{ detector: 'late', occurred_at: at(4) }] })).status).toBe(401);
  });

  it('removes the rows from open streams with tombstones', async () => {
    // the purge day is set by an earlier removal today, so this one does not end the stream
    const { org, mod } = await archiveOrg(x.root, t.plane.app);
    const ids = await send(mod, [
      { detector: 'tomb', occurred_at: at(5) },
      { detector: 'tomb', occurred_at: at(6), severity: 'debug' },
    ]);
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
    // Each tombstone row holds the frame the stream sent (the rows are written from the frames' JSON, issue 26).
    const stored = await sql<{ frame: any }>`select frame from event_tombstones where org_id = ${org.id}`.execute(
      t.db.database.db,
    );
    const byId = new Map(stored.rows.map((r) => [r.frame.id as string, r.frame]));
    for (const e of tombs) expect(byId.get(e.data.id)).toEqual(e.data);
  });

  it('many attachments: every file goes, however many deletions run at once; the queue job follows a full run at once', async () => {
    expect(t.plane.services.events.archive.backgroundJob().fixedRate).toBe(true);
    const { org, mod } = await archiveOrg(x.root, t.plane.app);
    const refs: string[] = [];
    for (let i = 0; i < 40; i++) refs.push(await upload(mod, 100 + i));
    await send(mod, [{ detector: 'many', occurred_at: at(8), attachments: refs.slice(0, 10) }]);
    expect(await files(dir, org.id)).toHaveLength(40);
    const r = await x.root.del(`/api/v1/orgs/${org.id}`);
    const job = await finished(x.root, r.body.cleanup_job_id);
    expect(job.progress).toEqual({ events: 1, attachments: 40 });
    expect(await files(dir, org.id)).toEqual([]);
    expect(await rowsOf(t.db, org.id)).toMatchObject({ events: 0, attachments: 0 });
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
