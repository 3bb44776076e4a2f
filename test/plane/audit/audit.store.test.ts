import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { login } from '../client.js';

let t: TestPlane;
beforeAll(async () => {
  t = await startPlane();
});
afterAll(async () => {
  await t?.close();
});

it('partitions audit by month and keeps rows out of the default partition', async () => {
  const c = await login(t.plane.app);
  await c.post('/api/v1/auth/logout');
  const db = t.db.database.db;
  const parts = await sql<{
    name: string;
  }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'audit'::regclass order by 1`.execute(db);
  const now = new Date();
  const month = (d: Date) => `audit_${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  const names = parts.rows.map((r) => r.name);
  expect(names).toContain('audit_default');
  expect(names).toContain(month(now));
  expect(names).toContain(month(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 1))));
  const inDefault = await sql<{ n: number }>`select count(*)::int as n from only audit_default`.execute(db);
  expect(inDefault.rows[0]!.n).toBe(0);
  const total = await sql<{ n: number }>`select count(*)::int as n from audit`.execute(db);
  expect(total.rows[0]!.n).toBeGreaterThanOrEqual(2);
});

it('gives each record a UUIDv7 carrying its time and a strictly growing seq', async () => {
  await login(t.plane.app);
  const rows = await t.db.database.db.selectFrom('audit').select(['id', 'occurred_at', 'seq']).orderBy('seq').execute();
  let last = 0;
  for (const r of rows) {
    expect(r.id[14]).toBe('7');
    const ms = parseInt(r.id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBe(new Date(r.occurred_at).getTime());
    expect(Number(r.seq)).toBeGreaterThan(last);
    last = Number(r.seq);
  }
});

it('ensures partitions idempotently, also for a month whose rows sit in the default partition', async () => {
  const { auditStore } = await import('../../../src/plane/audit/audit.store.js');
  const db = t.db.database.db;
  const count = async () =>
    (
      await sql<{ n: number }>`select count(*)::int as n from pg_inherits where inhparent = 'audit'::regclass`.execute(
        db,
      )
    ).rows[0]!.n;
  const before = await count();
  const now = Date.now();
  await auditStore.ensurePartitions(db, new Date(now), new Date(now + 40 * 86_400_000));
  expect(await count()).toBe(before);
  expect(t.plane.services.jobs.list().map((j) => j.name)).toContain('audit.partitions');
});

it('stores each record rendered as its API row, also after it is closed and for awkward text', async () => {
  const { auditStore } = await import('../../../src/plane/audit/audit.store.js');
  const { jsonRow } = await import('../../../src/plane/audit/audit.service.js');
  const { v7: uuidv7 } = await import('uuid');
  const db = t.db.database.db;
  const occurredAt = new Date(Date.now() - 1234);
  const id = uuidv7({ msecs: occurredAt.getTime() });
  const awkward = 'quote " backslash \\ tab \t newline \n nul-free \u0001 ünï 🎥 </script>';
  await db.transaction().execute((trx) =>
    auditStore.insert(trx, {
      id,
      occurred_at: occurredAt,
      ended_at: null,
      org_id: null,
      actor_id: null,
      actor_name: awkward,
      actor_role: 'superadmin',
      ip: '::1',
      user_agent: awkward,
      action: 'auth.login',
      object_type: 'user',
      object_id: null,
      object_name: awkward,
      params: { nested: { list: [1, 2.5, null, true, 'x'], s: awkward }, empty: {} },
      node_id: null,
    }),
  );
  const check = async () => {
    const row = await auditStore.get(db, id, occurredAt, null);
    const stored = await db.selectFrom('audit').select('doc').where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.doc)).toEqual(jsonRow(row!));
    expect(Object.keys(JSON.parse(stored.doc))).toEqual(Object.keys(jsonRow(row!)));
    return JSON.parse(stored.doc) as { ended_at: string | null };
  };
  expect((await check()).ended_at).toBeNull();
  const endedAt = new Date(occurredAt.getTime() + 999);
  await db.transaction().execute((trx) => auditStore.close(trx, id, occurredAt, endedAt, 2));
  expect((await check()).ended_at).toBe(endedAt.toISOString());
  const page = await auditStore.listJson(db, {
    orgId: null,
    before: null,
    occurredFrom: null,
    occurredTo: null,
    actorId: null,
    action: null,
    objectType: null,
    objectId: null,
    nodeId: null,
    words: [],
    limit: 100,
  });
  expect((JSON.parse(page.rows) as { id: string }[]).some((r) => r.id === id)).toBe(true);
});

it('closes a begun record at most twice (two permitted extensions), each with a new seq', async () => {
  const c = await login(t.plane.app);
  const row = (await c.get('/api/v1/audit?action=auth.login&limit=1')).body.rows[0];
  const db = t.db.database.db;
  const close = () =>
    db.transaction().execute((trx) => t.plane.services.audit.close(trx, row.id, new Date(row.occurred_at)));
  const seqOf = async () =>
    Number((await db.selectFrom('audit').select('seq').where('id', '=', row.id).executeTakeFirstOrThrow()).seq);
  const s0 = await seqOf();
  expect(await close()).toBe(true);
  const s1 = await seqOf();
  expect(await close()).toBe(true);
  const s2 = await seqOf();
  expect(await close()).toBe(false);
  expect(await seqOf()).toBe(s2);
  expect(s0 < s1 && s1 < s2).toBe(true);
  const after = await c.get(`/api/v1/audit/${row.id}?occurred_at=${encodeURIComponent(row.occurred_at)}`);
  expect(after.body.ended_at).not.toBeNull();
});
