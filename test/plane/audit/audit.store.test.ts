import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { login } from '../client.js';

let t: TestPlane;
beforeAll(async () => { t = await startPlane(); });
afterAll(async () => { await t?.close(); });

it('partitions audit by month and keeps rows out of the default partition', async () => {
  const c = await login(t.plane.app);
  await c.post('/api/v1/auth/logout');
  const db = t.db.database.db;
  const parts = await sql<{ name: string }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
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
  const count = async () => (await sql<{ n: number }>`select count(*)::int as n from pg_inherits where inhparent = 'audit'::regclass`.execute(db)).rows[0]!.n;
  const before = await count();
  const now = Date.now();
  await auditStore.ensurePartitions(db, new Date(now), new Date(now + 40 * 86_400_000));
  expect(await count()).toBe(before);
  expect(t.plane.services.jobs.list().map((j) => j.name)).toContain('audit.partitions');
});
