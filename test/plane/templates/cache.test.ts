import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../../../src/plane/db/database.js';
import { freshDatabase, startPlane, type TestDb, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { unique } from '../inventory.helpers.js';

/**
 * The template cache of intake: one load per organisation, dropped by the NOTIFY a committed
 * change sends, in every plane process.
 */
let db: TestDb;
let one: TestPlane;
let two: TestPlane | null = null;

beforeAll(async () => {
  db = await freshDatabase();
  one = await startPlane({ db });
  // A second plane process: its own pool and listener on the same database (PostgreSQL only).
  if (db.url) {
    const database = await openDatabase({ kind: 'postgres', url: db.url });
    two = await startPlane({ db: { database, url: db.url, drop: () => database.close() } });
  }
});
afterAll(async () => {
  await two?.close();
  await two?.db.drop();
  await one?.close();
  await db?.drop();
});

async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function setup(p: TestPlane) {
  const root = await login(p.plane.app);
  const org = (await root.post('/api/v1/orgs', { name: unique('c') })).body.id;
  const mod = new Client(
    p.plane.app,
    (await root.post('/api/v1/module-tokens', { name: unique('m'), org_id: org })).body.secret,
  );
  return { root, org, mod };
}
const ingest = async (mod: Client, detector: string) => {
  const r = await mod.post('/api/v1/events', {
    events: [{ detector, occurred_at: new Date(Date.now() - 1000).toISOString(), payload: { v: 'x' } }],
  });
  expect(r.status, r.text).toBe(200);
  const row = await sql<{
    template_id: string | null;
  }>`select template_id from events where id = ${r.body.results[0].id}`.execute(db.database.db);
  return row.rows[0]!.template_id;
};

describe('template cache', () => {
  it('loads once per organisation; a change through the API applies to the next batch', async () => {
    const { root, org, mod } = await setup(one);
    const cache = one.plane.services.templateCache;
    expect(await ingest(mod, 'cache.a')).toBeNull();
    const loads = cache.loads;
    expect(await ingest(mod, 'cache.a')).toBeNull();
    expect(cache.loads).toBe(loads);
    const id = (
      await root.post('/api/v1/templates', { name: unique('t'), org_id: org, doc: { detector_match: 'cache.*' } })
    ).body.id;
    expect(await ingest(mod, 'cache.a')).toBe(id);
    expect((await root.del(`/api/v1/templates/${id}`)).status).toBe(200);
    expect(await ingest(mod, 'cache.a')).toBeNull();
  });

  it('validate resets no cache: it sends no notice and the cached catalogue is not reloaded', async () => {
    const { root, mod } = await setup(one);
    const cache = one.plane.services.templateCache;
    expect(await ingest(mod, 'val.a')).toBeNull();
    const loads = cache.loads;
    const got: string[] = [];
    const stop = await db.database.listen('argus_templates', (p) => got.push(p));
    try {
      const v = await root.post('/api/v1/templates/validate', { doc: { detector_match: 'val.*' } });
      expect(v.status, v.text).toBe(200);
      // a marker: the notice of a change made after the validate
      const other = (await root.post('/api/v1/orgs', { name: unique('marker') })).body.id;
      expect(
        (await root.post('/api/v1/templates', { name: unique('t'), org_id: other, doc: { detector_match: 'marker' } }))
          .status,
      ).toBe(201);
      await until(async () => got.length > 0);
      expect(got).toEqual([other]);
    } finally {
      await stop();
    }
    expect(await ingest(mod, 'val.a')).toBeNull();
    expect(cache.loads).toBe(loads);
  });

  it('a NOTIFY on argus_templates drops the cached organisation (a change committed elsewhere)', async () => {
    const { org, mod } = await setup(one);
    expect(await ingest(mod, 'notify.a')).toBeNull();
    const id = '01900000-0000-7000-8000-0000000000aa';
    await sql`insert into event_templates (id, org_id, name, detector_match, doc) values (${id}, ${org}, 'direct', 'notify.a', '{"detector_match":"notify.a"}')`.execute(
      db.database.db,
    );
    // without a notice the cached catalogue stays
    expect(await ingest(mod, 'notify.a')).toBeNull();
    await sql`select pg_notify('argus_templates', ${org})`.execute(db.database.db);
    await until(async () => (await ingest(mod, 'notify.a')) === id);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'a template created through one plane process applies at intake in another',
    async () => {
      const { root, org } = await setup(one);
      const root2 = await login(two!.plane.app);
      const mod2 = new Client(
        two!.plane.app,
        (await root2.post('/api/v1/module-tokens', { name: unique('m'), org_id: org })).body.secret,
      );
      expect(await ingest(mod2, 'cross.a')).toBeNull();
      const id = (
        await root.post('/api/v1/templates', { name: unique('t'), org_id: org, doc: { detector_match: 'cross.a' } })
      ).body.id;
      await until(async () => (await ingest(mod2, 'cross.a')) === id);
      // a system template override reaches every organisation's cache in the other process
      expect(
        (await root.patch('/api/v1/templates/00000000-0000-7000-8000-00000000a003', { doc: { ignore_event: true } }))
          .status,
      ).toBe(200);
      await until(async () => {
        const r = await mod2.post('/api/v1/events', {
          events: [
            { detector: 'system.evidence_storage_pressure', occurred_at: new Date(Date.now() - 1000).toISOString() },
          ],
        });
        return r.body.results[0].ignored === true;
      });
    },
  );

  it('the card reads its template from the cache: one load per template; a change here or elsewhere shows on the next card', async () => {
    const { root, org, mod } = await setup(one);
    const cache = one.plane.services.templateCache;
    const tid = (
      await root.post('/api/v1/templates', {
        name: unique('t'),
        org_id: org,
        doc: { detector_match: 'card.*', title: 'First' },
      })
    ).body.id;
    const r = await mod.post('/api/v1/events', {
      events: [{ detector: 'card.a', occurred_at: new Date(Date.now() - 1000).toISOString() }],
    });
    expect(r.status, r.text).toBe(200);
    const card = async (c = root) => {
      const res = await c.get(`/api/v1/events/${r.body.results[0].id}`);
      expect(res.status, res.text).toBe(200);
      return res.body as { template: { id: string; title: unknown } | null; rendered: { title: unknown } };
    };
    expect((await card()).rendered.title).toBe('First');
    const loads = cache.idLoads;
    expect((await card()).template).toMatchObject({ id: tid, title: 'First' });
    expect(cache.idLoads).toBe(loads);
    // a change through the API drops the cached template at once in this process
    expect(
      (await root.patch(`/api/v1/templates/${tid}`, { doc: { detector_match: 'card.*', title: 'Second' } })).status,
    ).toBe(200);
    expect((await card()).rendered.title).toBe('Second');
    // The PATCH's own NOTIFY drops the cache again when it arrives: a marker notice sent after it
    // is seen first (the card loads its template anew), so none of ours is still on the way.
    await sql`select pg_notify('argus_templates', '00000000-0000-0000-0000-000000000000')`.execute(db.database.db);
    const marked = cache.idLoads;
    await until(async () => {
      await card();
      return cache.idLoads > marked;
    });
    // a change committed elsewhere: the cached one stays until its NOTIFY arrives
    await sql`update event_templates set doc = '{"detector_match":"card.*","title":"Third"}' where id = ${tid}`.execute(
      db.database.db,
    );
    expect((await card()).rendered.title).toBe('Second');
    await sql`select pg_notify('argus_templates', ${org})`.execute(db.database.db);
    await until(async () => (await card()).rendered.title === 'Third');
    if (two) {
      const root2 = await login(two.plane.app);
      expect((await card(root2)).rendered.title).toBe('Third');
      expect(
        (await root.patch(`/api/v1/templates/${tid}`, { doc: { detector_match: 'card.*', title: 'Fourth' } })).status,
      ).toBe(200);
      await until(async () => (await card(root2)).rendered.title === 'Fourth');
    }
    // deleted: the card shows no template, at once here and after the NOTIFY elsewhere
    expect((await root.del(`/api/v1/templates/${tid}`)).status).toBe(200);
    expect((await card()).template).toBeNull();
    if (two) {
      const root2 = await login(two.plane.app);
      await until(async () => (await card(root2)).template === null);
    }
  });
});
