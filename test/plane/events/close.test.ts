import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, unique, NOT_FOUND, type Tenants } from '../inventory.helpers.js';
import { eventId } from '../../../src/plane/events/log/events.ids.js';

let t: TestPlane;
let x: Tenants;
let cam1: string;
let mod1: Client, mod2: Client, modB: Client;
let tok1: string;
const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

async function make(mod: Client, item: Record<string, unknown>): Promise<string> {
  const r = await mod.post('/api/v1/events', { events: [{ detector: 'loiter', occurred_at: iso(-60_000), ...item }] });
  expect(r.body.results[0].id, r.text).toBeDefined();
  return r.body.results[0].id;
}
const open = (over: Record<string, unknown> = {}) => make(mod1, { interval: true, ...over });
const endedAt = (id: string) =>
  t.db.database.db.selectFrom('events').select(['ended_at', 'seq']).where('id', '=', id).executeTakeFirstOrThrow();

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  const node = (
    await x.root.post('/api/v1/nodes', {
      name: unique('n'),
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    })
  ).body.id;
  cam1 = (
    await x.a.admin.post('/api/v1/cameras', { name: unique('cam'), node_id: node, main_source: 'rtsp://10.0.0.1/a' })
  ).body.id;
  await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] });
  const tok = async (admin: Client) =>
    (await admin.post('/api/v1/module-tokens', { name: unique('m'), rate_limit: 100000 })).body;
  const t1 = await tok(x.a.admin);
  tok1 = t1.id;
  mod1 = new Client(t.plane.app, t1.secret);
  mod2 = new Client(t.plane.app, (await tok(x.a.admin)).secret);
  modB = new Client(t.plane.app, (await tok(x.b.admin)).secret);
});
afterAll(async () => {
  await t?.close();
});

describe('PATCH /api/v1/events/{id}', () => {
  it('the module token that created an interval closes it; an updated frame with a new position', async () => {
    const id = await open({ camera_id: cam1 });
    const before = Number((await endedAt(id)).seq);
    const got: string[] = [];
    const stop = await t.db.database.listen('argus_events', (p) => got.push(p));
    try {
      const when = iso(-1000);
      const r = await mod1.patch(`/api/v1/events/${id}`, { ended_at: when });
      expect([r.status, r.body]).toEqual([200, { id, ended_at: when }]);
      const row = await endedAt(id);
      expect(new Date(row.ended_at!).toISOString()).toBe(when);
      expect(Number(row.seq)).toBeGreaterThan(before);
      // notices of earlier batches may still arrive: find ours
      const find = () =>
        got
          .flatMap((p) => JSON.parse(p) as any[])
          .flatMap((n) => n.frames ?? [])
          .find((fr: any) => fr.id === id && fr.updated);
      for (let i = 0; i < 250 && !find(); i++) await new Promise((res) => setTimeout(res, 20));
      const f = find();
      expect(f).toMatchObject({
        id,
        ended_at: when,
        interval: true,
        updated: true,
        seq: Number(row.seq),
        camera_id: cam1,
      });
    } finally {
      await stop();
    }
    const again = await mod1.patch(`/api/v1/events/${id}`, { ended_at: iso() });
    expect([again.status, again.body]).toEqual([409, { error: 'already_closed' }]);
  });

  it('administrators of the organisation and superadmins close; operators who see it get 403, others 404', async () => {
    const a = await open({ camera_id: cam1 });
    expect((await x.a.operator.patch(`/api/v1/events/${a}`, { ended_at: iso() })).body).toEqual({ error: 'forbidden' });
    expect((await mod2.patch(`/api/v1/events/${a}`, { ended_at: iso() })).body).toEqual({ error: 'forbidden' });
    for (const c of [x.b.admin, x.b.operator, modB]) {
      const r = await c.patch(`/api/v1/events/${a}`, { ended_at: iso() });
      expect([r.status, r.text]).toEqual([404, NOT_FOUND]);
    }
    const hidden = await open();
    expect((await x.a.operator.patch(`/api/v1/events/${hidden}`, { ended_at: iso() })).text).toBe(NOT_FOUND);
    expect((await x.a.admin.patch(`/api/v1/events/${a}`, { ended_at: iso() })).status).toBe(200);
    expect((await x.root.patch(`/api/v1/events/${hidden}`, { ended_at: iso() })).status).toBe(200);
    expect((await x.anon.patch(`/api/v1/events/${a}`, { ended_at: iso() })).body).toEqual({ error: 'unauthorized' });
    expect((await x.anon.as('amt_not-a-token').patch(`/api/v1/events/${a}`, { ended_at: iso() })).body).toEqual({
      error: 'unauthorized',
    });
  });

  it('after its token is deleted, an administrator closes the open intervals it left', async () => {
    const tok = (await x.a.admin.post('/api/v1/module-tokens', { name: unique('gone') })).body;
    const id = await make(new Client(t.plane.app, tok.secret), { interval: true });
    await x.a.admin.del(`/api/v1/module-tokens/${tok.id}`);
    expect((await x.a.admin.patch(`/api/v1/events/${id}`, { ended_at: iso() })).status).toBe(200);
  });

  it('errors: not_interval, already_closed, time checks, body codes, unknown and malformed ids', async () => {
    const instant = await make(mod1, {});
    expect((await mod1.patch(`/api/v1/events/${instant}`, { ended_at: iso() })).body).toEqual({
      error: 'not_interval',
    });
    const closed = await make(mod1, { interval: true, ended_at: iso(-30_000) });
    expect((await x.a.admin.patch(`/api/v1/events/${closed}`, { ended_at: iso() })).body).toEqual({
      error: 'already_closed',
    });
    const id = await open();
    for (const [body, error] of [
      [{ ended_at: iso(-3600_000) }, 'ended_at is before occurred_at'],
      [{ ended_at: iso(3600_000) }, 'ended_at is in the future'],
      [{}, 'bad_ended_at'],
      [{ ended_at: 'later' }, 'bad_ended_at'],
      [{ ended_at: null }, 'bad_ended_at'],
      [{ ended_at: iso(), x: 1 }, 'unknown_field'],
    ] as const) {
      const r = await mod1.patch(`/api/v1/events/${id}`, body);
      expect([r.status, r.body], JSON.stringify(body)).toEqual([400, { error }]);
    }
    expect((await endedAt(id)).ended_at).toBeNull();
    for (const bad of ['nope', eventId(Date.now()), '00000000-0000-4000-8000-000000000000']) {
      for (const c of [mod1, x.a.admin])
        expect((await c.patch(`/api/v1/events/${bad}`, { ended_at: iso() })).text).toBe(NOT_FOUND);
    }
    void tok1;
  });
});
