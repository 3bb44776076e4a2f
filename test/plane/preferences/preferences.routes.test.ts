import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { cameraWorld, createUser, randomId, tenants, unique, type Tenants } from '../inventory.helpers.js';
import type { Client } from '../client.js';

let t: TestPlane;
let x: Tenants;
beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
});
afterAll(async () => {
  await t?.close();
});

const URL = '/api/v1/me/preferences';
const DEFAULTS = { timezone: null, clock: '24h', views: [] };
const valid = () => ({
  timezone: 'Europe/Lisbon',
  clock: '12h',
  views: [{ name: 'Gate', layout: '2x2', camera_ids: [] as string[] }],
});
/** A fresh operator of A, so each test starts from the defaults. */
const operator = async (): Promise<{ id: string; client: Client }> =>
  createUser(t, x.a.admin, { login: unique('pref'), role: 'user' });
const refused = async (c: Client, body: unknown, error: string) => {
  const r = await c.put(URL, body);
  expect({ status: r.status, body: r.body }, JSON.stringify(body).slice(0, 200)).toEqual({
    status: 400,
    body: { error },
  });
};

describe('GET, PUT /api/v1/me/preferences', () => {
  it('401 unauthorized without a session, for both', async () => {
    for (const r of [await x.anon.get(URL), await x.anon.put(URL, valid())]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: 'unauthorized' });
    }
  });

  it('the defaults until saved; a PUT answers the record as a GET then reads it, for every role', async () => {
    for (const c of [(await operator()).client, x.b.admin, x.root]) {
      expect((await c.get(URL)).body).toEqual(DEFAULTS);
      const put = await c.put(URL, valid());
      expect(put.status, put.text).toBe(200);
      expect(put.body).toEqual(valid());
      const get = await c.get(URL);
      expect(get.status).toBe(200);
      expect(get.body).toEqual(valid());
      expect(get.headers['cache-control']).toBe('no-store');
    }
  });

  it('a PUT replaces the whole record: every field is required', async () => {
    const { client } = await operator();
    expect((await client.put(URL, valid())).status).toBe(200);
    await refused(client, { clock: '24h', views: [] }, 'bad_timezone');
    await refused(client, { timezone: null, views: [] }, 'bad_clock');
    await refused(client, { timezone: null, clock: '24h' }, 'bad_views');
    expect((await client.get(URL)).body).toEqual(valid());
    const empty = await client.put(URL, DEFAULTS);
    expect(empty.body).toEqual(DEFAULTS);
    expect((await client.get(URL)).body).toEqual(DEFAULTS);
  });

  it("each user's own record only: nothing in the route or the body names another user", async () => {
    const one = await operator();
    const two = await operator();
    expect((await one.client.put(URL, valid())).status).toBe(200);
    expect((await two.client.get(URL)).body).toEqual(DEFAULTS);
    expect((await x.a.admin.get(URL)).body).toEqual(DEFAULTS);
    expect((await x.b.operator.get(URL)).body).toEqual(DEFAULTS);
    await refused(two.client, { ...valid(), user_id: one.id }, 'unknown_field');
    expect((await x.a.admin.get(`${URL}?user_id=${one.id}`)).body).toEqual(DEFAULTS);
    expect((await x.a.admin.req('PUT', `/api/v1/users/${one.id}/preferences`, valid())).status).toBe(501);
    expect((await one.client.get(URL)).body).toEqual(valid());
  });

  it('timezone: an IANA name or null (400 bad_timezone)', async () => {
    const { client } = await operator();
    for (const timezone of ['Australia/Lord_Howe', 'UTC', null]) {
      expect((await client.put(URL, { ...valid(), timezone })).body.timezone).toBe(timezone);
    }
    for (const timezone of ['Nowhere/Atlantis', '+02:00', '', 'x'.repeat(65), 7, ['UTC'], true]) {
      await refused(client, { ...valid(), timezone }, 'bad_timezone');
    }
  });

  it('clock: 24h or 12h (400 bad_clock)', async () => {
    const { client } = await operator();
    for (const clock of ['24h', '12h']) expect((await client.put(URL, { ...valid(), clock })).body.clock).toBe(clock);
    for (const clock of ['24', '12H', 'am/pm', null, 24]) await refused(client, { ...valid(), clock }, 'bad_clock');
  });

  it('views: at most 32 (400 bad_views), each {name, layout, camera_ids}', async () => {
    const { client } = await operator();
    const views = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `V${i}`, layout: 'auto', camera_ids: [] }));
    const ok = await client.put(URL, { ...valid(), views: views(32) });
    expect(ok.status).toBe(200);
    expect(ok.body.views).toHaveLength(32);
    await refused(client, { ...valid(), views: views(33) }, 'bad_views');
    for (const v of [null, {}, 'Gate', [1], [null], [['Gate']]])
      await refused(client, { ...valid(), views: v }, 'bad_views');
    expect((await client.get(URL)).body.views).toEqual(views(32));
  });

  it('a view: name (bad_name), layout (bad_layout), camera ids as uuids (bad_camera), no other field', async () => {
    const { client } = await operator();
    const withView = (v: Record<string, unknown>) => ({
      ...valid(),
      views: [{ name: 'Gate', layout: '1', camera_ids: [], ...v }],
    });
    for (const layout of ['1', '2x2', '3x3', '4x4', 'auto'])
      expect((await client.put(URL, withView({ layout }))).body.views[0].layout).toBe(layout);
    for (const layout of ['5x5', '2X2', 'Auto', 1, null, '']) await refused(client, withView({ layout }), 'bad_layout');
    for (const name of ['', ' ', 'x'.repeat(129), 'tab\there', 5, null])
      await refused(client, withView({ name }), 'bad_name');
    for (const camera_ids of [['not-a-uuid'], [42], [null], 'x', null, [randomId(), 'x']])
      await refused(client, withView({ camera_ids }), 'bad_camera');
    await refused(client, withView({ colour: 'red' }), 'unknown_field');
    await refused(client, { ...valid(), theme: 'dark' }, 'unknown_field');
    const { name: _n, ...noName } = valid().views[0]!;
    await refused(client, { ...valid(), views: [noName] }, 'bad_name');
    const { layout: _l, ...noLayout } = valid().views[0]!;
    await refused(client, { ...valid(), views: [noLayout] }, 'bad_layout');
    const { camera_ids: _c, ...noCameras } = valid().views[0]!;
    await refused(client, { ...valid(), views: [noCameras] }, 'bad_camera');
    expect((await client.put(URL, withView({ name: 'x'.repeat(128) }))).status).toBe(200);
  });

  it('two views of one name are 400 duplicate_view_name; a body that is no object is 400 bad_request or bad_json', async () => {
    const { client } = await operator();
    const two = (a: string, b: string) => ({
      ...valid(),
      views: [
        { name: a, layout: '1', camera_ids: [] },
        { name: b, layout: '2x2', camera_ids: [] },
      ],
    });
    await refused(client, two('Dock', 'Dock'), 'duplicate_view_name');
    await refused(client, two('Dock', 'DOCK'), 'duplicate_view_name');
    expect((await client.put(URL, two('Dock', 'Dock 2'))).status).toBe(200);
    await refused(client, [valid()], 'bad_request');
    const text = await client.req('PUT', URL, '"prefs"', { 'content-type': 'application/json' });
    expect({ status: text.status, body: text.body }).toEqual({ status: 400, body: { error: 'bad_request' } });
    const broken = await client.req('PUT', URL, '{"timezone":', { 'content-type': 'application/json' });
    expect({ status: broken.status, body: broken.body }).toEqual({ status: 400, body: { error: 'bad_json' } });
  });

  it('a body of at most 64 KiB: 65,536 bytes are taken, one more is 413 payload_too_large', async () => {
    const { client } = await operator();
    const send = (bytes: number) => {
      const json = JSON.stringify(valid());
      // JSON allows whitespace between tokens: the same record, padded to the size asked.
      const text = `${json.slice(0, -1)}${' '.repeat(bytes - json.length)}}`;
      expect(Buffer.byteLength(text)).toBe(bytes);
      return client.req('PUT', URL, text, { 'content-type': 'application/json' });
    };
    const at = await send(64 * 1024);
    expect(at.status, at.text).toBe(200);
    const over = await send(64 * 1024 + 1);
    expect({ status: over.status, body: over.body }).toEqual({ status: 413, body: { error: 'payload_too_large' } });
    // A record that is simply too big: 32 views of 60 cameras each.
    const big = {
      ...valid(),
      views: Array.from({ length: 32 }, (_, i) => ({
        name: `V${i}`,
        layout: 'auto',
        camera_ids: Array.from({ length: 60 }, () => randomId()),
      })),
    };
    expect(Buffer.byteLength(JSON.stringify(big))).toBeGreaterThan(64 * 1024);
    expect((await client.put(URL, big)).status).toBe(413);
    expect((await client.get(URL)).body).toEqual(valid());
  });

  it("a camera the caller may no longer see is left out on read: not granted, another organisation's, deleted", async () => {
    const world = await cameraWorld(t, x);
    const mine = await world.camera(x.a.admin);
    const notGranted = await world.camera(x.a.admin);
    const deleted = await world.camera(x.a.admin);
    const foreign = await world.camera(x.b.admin);
    const op = await operator();
    const grants = await x.a.admin.put(`/api/v1/users/${op.id}/grants`, { camera_ids: [mine, deleted], tag_ids: [] });
    expect(grants.status).toBe(200);
    const body = {
      ...valid(),
      views: [
        { name: 'Yard', layout: '2x2', camera_ids: [foreign, mine, notGranted, deleted] },
        { name: 'Other', layout: '1', camera_ids: [foreign] },
      ],
    };
    const put = await op.client.put(URL, body);
    expect(put.status).toBe(200);
    expect(put.body.views).toEqual([
      { name: 'Yard', layout: '2x2', camera_ids: [mine, deleted] },
      { name: 'Other', layout: '1', camera_ids: [] },
    ]);
    expect((await x.a.admin.del(`/api/v1/cameras/${deleted}`)).status).toBe(200);
    expect((await op.client.get(URL)).body.views[0].camera_ids).toEqual([mine]);
    // The administrator of A sees every camera of A; root every camera.
    expect((await x.a.admin.put(URL, body)).body.views[0].camera_ids).toEqual([mine, notGranted]);
    expect((await x.root.put(URL, body)).body.views[0].camera_ids).toEqual([foreign, mine, notGranted]);
  });

  it('a PUT is not audited: the own display is not a record of the fleet', async () => {
    const op = await operator();
    const count = async () =>
      Number(
        (
          await t.db.database.db
            .selectFrom('audit')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('actor_id', '=', op.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    expect((await op.client.put(URL, valid())).status).toBe(200);
    expect(await count()).toBe(before);
  });

  it('the OpenAPI document lists both operations with their codes', async () => {
    const doc = (await x.anon.get('/api/v1/openapi.json')).body;
    const put = doc.paths['/api/v1/me/preferences'].put;
    expect(put.responses['400'].content['application/json'].schema.properties.error.enum).toEqual(
      expect.arrayContaining(['bad_timezone', 'bad_clock', 'bad_views', 'bad_name', 'bad_layout', 'bad_camera']),
    );
    expect(put.responses['413'].content['application/json'].schema.properties.error.enum).toEqual([
      'payload_too_large',
    ]);
    expect(doc.paths['/api/v1/me/preferences'].get.responses['401']).toBeDefined();
  });
});
