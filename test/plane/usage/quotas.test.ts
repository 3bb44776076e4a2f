import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { login, type Client } from '../client.js';
import { PASSWORD, unique } from '../inventory.helpers.js';
import { ApiError } from '../../../src/plane/errors.js';

// Quotas at create (document 4 §9): 409 max_*_reached, race-free; lowering a max deletes nothing.

describe('quotas at create', () => {
  let t: TestPlane;
  let root: Client;
  let node: string;
  beforeAll(async () => {
    t = await startPlane();
    root = await login(t.plane.app);
    node = (
      await root.post('/api/v1/nodes', {
        name: unique('n'),
        url: 'http://127.0.0.1:9',
        api_token: 'node-write-token-123456',
      })
    ).body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const creators: Record<string, (orgId: string, i: number) => Promise<{ status: number; body: any }>> = {
    cameras: (org, i) =>
      root.post('/api/v1/cameras', { name: `c${i}`, node_id: node, org_id: org, main_source: 'rtsp://10.0.0.1/a' }),
    users: (org, i) =>
      root.post('/api/v1/users', { login: unique(`q${i}`), password: PASSWORD, role: 'user', org_id: org }),
    tags: (org, i) => root.post('/api/v1/tags', { name: unique(`t${i}`), org_id: org }),
    event_templates: (org, i) =>
      root.post('/api/v1/templates', {
        name: unique(`tpl${i}`),
        org_id: org,
        doc: { detector_match: `q${i}.*`, title: 'Q' },
      }),
  };
  const limitOf = {
    cameras: 'max_cameras',
    users: 'max_users',
    tags: 'max_tags',
    event_templates: 'max_event_templates',
  } as const;

  for (const [resource, create] of Object.entries(creators)) {
    const field = limitOf[resource as keyof typeof limitOf];
    it(`${field}: parallel creates at max-1 leave exactly max rows, the rest 409 ${field}_reached`, async () => {
      const org = (await root.post('/api/v1/orgs', { name: unique('quota'), [field]: 3 })).body;
      for (let i = 0; i < 2; i++) expect((await create(org.id, i)).status).toBe(201);
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => create(org.id, 10 + i)));
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status !== 201).map((r) => [r.status, r.body])).toEqual(
        Array(5).fill([409, { error: `${field}_reached` }]),
      );
      const usage = (await root.get(`/api/v1/usage?org_id=${org.id}`)).body;
      expect(usage[`${resource}_count`]).toBe(3);
      expect(usage[field]).toBe(3);

      // lowering the max below the count deletes nothing; creates are refused until it is back under
      expect((await root.patch(`/api/v1/orgs/${org.id}`, { [field]: 1 })).status).toBe(200);
      expect((await root.get(`/api/v1/usage?org_id=${org.id}`)).body[`${resource}_count`]).toBe(3);
      expect(await create(org.id, 99)).toMatchObject({ status: 409, body: { error: `${field}_reached` } });
      expect((await root.patch(`/api/v1/orgs/${org.id}`, { [field]: null })).status).toBe(200);
      expect((await create(org.id, 100)).status).toBe(201);
    });
  }

  // Issue 13's tables do not exist yet: a stand-in table attaches its counter the way their
  // migration will (docs/usage.md) and its create calls UsageService.admit.
  for (const resource of ['dashboards', 'reports'] as const) {
    it(`max_${resource}: the mechanism issue 13 attaches (counter trigger + admit) holds under races`, async () => {
      const db = t.db.database.db;
      const table = `stand_in_${resource}`;
      await sql`create table ${sql.table(table)} (id uuid primary key, org_id uuid not null)`.execute(db);
      await sql`select argus_attach_usage_counter(${table}::regclass, ${resource})`.execute(db);
      const org = (await root.post('/api/v1/orgs', { name: unique('q13'), [`max_${resource}`]: 3 })).body;
      const usage = t.plane.services.usage;
      const create = () =>
        db
          .transaction()
          .execute(async (trx) => {
            await usage.admit(trx, org.id, resource);
            await sql`insert into ${sql.table(table)} values (${randomUUID()}, ${org.id})`.execute(trx);
          })
          .then(
            () => 'created',
            (e: unknown) => (e instanceof ApiError ? `${e.status} ${e.code}` : String(e)),
          );
      expect([await create(), await create()]).toEqual(['created', 'created']);
      const results = await Promise.all(Array.from({ length: 6 }, create));
      expect(results.sort()).toEqual([...Array(5).fill(`409 max_${resource}_reached`), 'created'].sort());
      const rows = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db);
      expect(rows.rows[0]!.n).toBe(3);
      expect((await root.get(`/api/v1/usage?org_id=${org.id}`)).body).toMatchObject({
        [`${resource}_count`]: 3,
        [`max_${resource}`]: 3,
      });
      await sql`delete from ${sql.table(table)} where org_id = ${org.id}`.execute(db);
      expect((await root.get(`/api/v1/usage?org_id=${org.id}`)).body[`${resource}_count`]).toBe(0);
    });
  }

  it('admit of an unknown organisation is 404 not_found', async () => {
    const r = await t.db.database.db
      .transaction()
      .execute((trx) => t.plane.services.usage.admit(trx, randomUUID(), 'dashboards'))
      .catch((e: ApiError) => e);
    expect(r).toMatchObject({ status: 404, code: 'not_found' });
  });
});
