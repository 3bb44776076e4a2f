import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { cameraWorld, createUser, tenants, unique, PASSWORD, type Tenants } from '../inventory.helpers.js';
import { sendEvents, uploadAttachment } from '../fixtures.js';

// The prepared counters (migration 0013) against real counts of the tables, after concurrent
// creates and deletes, a purge, and the deletion of an organisation.

const at = (i: number) => new Date(Date.now() - 3600_000 + i * 1000).toISOString();
const ok = <R extends { status: number; text: string }>(r: R, status = [200, 201, 204]): R => {
  expect(status, r.text).toContain(r.status);
  return r;
};

describe('prepared usage counters', () => {
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

  /** The real counts, from the tables themselves (what the usage route must never do). */
  async function real(orgId: string) {
    const db = t.db.database.db;
    const n = async (q: ReturnType<typeof sql<{ n: number }>>) => Number((await q.execute(db)).rows[0]!.n);
    return {
      cameras_count: await n(sql`select count(*)::int as n from cameras where org_id = ${orgId}`),
      users_count: await n(sql`select count(*)::int as n from users where org_id = ${orgId}`),
      tags_count: await n(sql`select count(*)::int as n from tags where org_id = ${orgId}`),
      event_templates_count: await n(sql`select count(*)::int as n from event_templates where org_id = ${orgId}`),
      sessions_count: await n(
        sql`select count(*)::int as n from sessions where org_id = ${orgId} and revoked_at is null and expires_at > now()`,
      ),
      events_count: await n(sql`select count(*)::int as n from events where org_id = ${orgId}`),
      attachments_count: await n(sql`select count(*)::int as n from attachments where org_id = ${orgId}`),
      attachment_bytes: await n(sql`select coalesce(sum(size), 0)::int as n from attachments where org_id = ${orgId}`),
    };
  }
  async function expectCountersExact(orgId: string) {
    const r = await x.root.get(`/api/v1/usage?org_id=${orgId}`);
    expect(r.status, r.text).toBe(200);
    const want = await real(orgId);
    expect(Object.fromEntries(Object.keys(want).map((k) => [k, r.body[k]]))).toEqual(want);
    return want;
  }

  it('stay equal to real counts after concurrent creates and deletes in two organisations', async () => {
    const world = await cameraWorld(t, x);
    const work: Array<Promise<unknown>> = [];
    for (const ten of [x.a, x.b]) {
      const mods = [await world.moduleToken(ten.admin), await world.moduleToken(ten.admin)];
      // each create races the others; a part of what is created is deleted while others still create
      const createThenMaybeDelete = async (
        create: () => Promise<{ id: string }>,
        del: ((id: string) => Promise<unknown>) | null,
      ) => {
        const { id } = await create();
        if (del) await del(id);
      };
      for (let i = 0; i < 10; i++) {
        work.push(
          createThenMaybeDelete(
            async () => ({ id: await world.camera(ten.admin) }),
            i % 3 === 0 ? (id) => ten.admin.del(`/api/v1/cameras/${id}`).then(ok) : null,
          ),
        );
        work.push(
          createThenMaybeDelete(
            async () => ok(await ten.admin.post('/api/v1/tags', { name: unique('tag') })).body,
            i % 2 === 0 ? (id) => ten.admin.del(`/api/v1/tags/${id}`).then(ok) : null,
          ),
        );
      }
      for (let i = 0; i < 6; i++) {
        work.push(
          createThenMaybeDelete(
            async () => ({ id: (await createUser(t, ten.admin, { login: unique('cu'), role: 'user' })).id }),
            i % 3 === 0 ? (id) => ten.admin.del(`/api/v1/users/${id}`).then(ok) : null,
          ),
        );
        work.push(
          createThenMaybeDelete(
            async () =>
              ok(
                await ten.admin.post('/api/v1/templates', {
                  name: unique('tpl'),
                  doc: { detector_match: `c${i}.*`, title: 'C' },
                }),
              ).body,
            i % 2 === 0 ? (id) => ten.admin.del(`/api/v1/templates/${id}`).then(ok) : null,
          ),
        );
      }
      // sessions: parallel logins of one user, some logged out again
      const login1 = unique('sess');
      await createUser(t, ten.admin, { login: login1, role: 'user' });
      for (let i = 0; i < 8; i++) {
        work.push(
          login(t.plane.app, { login: login1, password: PASSWORD }).then(async (c) => {
            if (i % 4 === 0) ok(await c.post('/api/v1/auth/logout', {}));
          }),
        );
      }
      // events in parallel batches from two module tokens (one statement each), attachments beside them
      for (let i = 0; i < 12; i++) {
        const mod = mods[i % 2]!;
        work.push(
          sendEvents(
            mod,
            Array.from({ length: 1 + (i % 5) * 7 }, (_, j) => ({ detector: `load.${i}`, occurred_at: at(j) })),
          ),
        );
      }
      for (let i = 0; i < 6; i++) work.push(uploadAttachment(mods[i % 2]!, 100 + i * 10));
    }
    await Promise.all(work);
    const a = await expectCountersExact(x.a.orgId);
    const b = await expectCountersExact(x.b.orgId);
    // the test exercised something in both organisations
    for (const want of [a, b]) {
      expect(want).toMatchObject({ cameras_count: 6, tags_count: 5, event_templates_count: 3 });
      expect(want.events_count).toBeGreaterThan(100);
      expect(want.attachments_count).toBe(6);
    }
    // a counter spread over shards still sums to the real count
    const shards = await sql<{
      n: number;
    }>`select count(*)::int as n from org_usage_counters where org_id = ${x.a.orgId}`.execute(t.db.database.db);
    expect(shards.rows[0]!.n).toBeGreaterThanOrEqual(1);
  });

  it('a purge of events gives back events, attachments and bytes', async () => {
    const world = await cameraWorld(t, x);
    const mod = await world.moduleToken(x.a.admin);
    const ref = await uploadAttachment(mod, 777);
    const ids = await sendEvents(mod, [
      { detector: 'purge.me', occurred_at: at(1), attachments: [ref] },
      { detector: 'purge.me', occurred_at: at(2) },
    ]);
    const before = await expectCountersExact(x.a.orgId);
    const r = await x.root.post('/api/v1/events/purge', { event_ids: ids });
    expect(r.status, r.text).toBe(202);
    const deadline = Date.now() + 15_000;
    while ((await x.root.get(`/api/v1/cleanup-jobs/${r.body.id}`)).body.finished_at === null) {
      if (Date.now() > deadline) throw new Error('purge did not finish');
      await new Promise((res) => setTimeout(res, 25));
    }
    const after = await expectCountersExact(x.a.orgId);
    expect(after.events_count).toBe(before.events_count - 2);
    expect(after.attachments_count).toBe(before.attachments_count - 1);
    expect(after.attachment_bytes).toBe(before.attachment_bytes - 777);
  });

  it('an organisation deleted takes its counter rows; the others keep theirs exact', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('doomed') })).body;
    const tok = ok(
      await x.root.post('/api/v1/module-tokens', { name: unique('m'), org_id: org.id, rate_limit: 1_000_000 }),
    ).body;
    const mod = new Client(t.plane.app, tok.secret);
    await sendEvents(mod, [
      { detector: 'doomed', occurred_at: at(1) },
      { detector: 'doomed', occurred_at: at(2) },
    ]);
    ok(
      await x.root.post('/api/v1/templates', {
        name: unique('tpl'),
        org_id: org.id,
        doc: { detector_match: 'd.*', title: 'D' },
      }),
    );
    const tag = ok(await x.root.post('/api/v1/tags', { name: 'gone', org_id: org.id })).body.id;
    expect(await expectCountersExact(org.id)).toMatchObject({
      events_count: 2,
      event_templates_count: 1,
      tags_count: 1,
    });
    ok(await x.root.del(`/api/v1/tags/${tag}`));
    const del = ok(await x.root.del(`/api/v1/orgs/${org.id}`));
    const deadline = Date.now() + 15_000;
    while ((await x.root.get(`/api/v1/cleanup-jobs/${del.body.cleanup_job_id}`)).body.finished_at === null) {
      if (Date.now() > deadline) throw new Error('archive cleanup did not finish');
      await new Promise((res) => setTimeout(res, 25));
    }
    const db = t.db.database.db;
    const left = await sql<{
      n: number;
    }>`select count(*)::int as n from org_usage_counters where org_id = ${org.id}`.execute(db);
    expect(left.rows[0]!.n).toBe(0);
    expect((await x.root.get(`/api/v1/usage?org_id=${org.id}`)).status).toBe(404);
    await expectCountersExact(x.a.orgId);
    await expectCountersExact(x.b.orgId);
  });
});
