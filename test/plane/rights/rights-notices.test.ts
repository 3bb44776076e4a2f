import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { SseReader } from '../sse-client.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';
import { sql } from 'kysely';
import { channels } from '../../../src/plane/live/bus.js';

// Rights notices: a camera's tags, a camera or a tag deleted re-evaluate open event streams at
// once, in every plane process. The streams here open on a second process and every check runs
// well inside the 5 s age limit of a rights view, so only the notice can make them pass.

let t: TestPlane;
let two: TestPlane;
let x: Tenants;
let base2: string;
let node: string;
let mod: Client;
let tag: string;
let direct: string;
const notices: string[] = [];
const auth = (c: Client) => ({ authorization: `Bearer ${c.token}` });

async function camera(tagIds: string[]): Promise<string> {
  const r = await x.a.admin.post('/api/v1/cameras', {
    name: unique('cam'),
    node_id: node,
    main_source: 'rtsp://10.0.0.1/a',
    tag_ids: tagIds,
  });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}
async function send(items: Array<Record<string, unknown>>): Promise<string[]> {
  const r = await mod.post('/api/v1/events', {
    events: items.map((i) => ({ occurred_at: new Date().toISOString(), severity: 'info', ...i })),
  });
  expect(r.status, r.text).toBe(200);
  return r.body.results.map((i: any) => {
    expect(i.id, JSON.stringify(i)).toBeDefined();
    return i.id as string;
  });
}
/** An operator stream on the second process, with its rights loaded. */
async function operatorStream(): Promise<SseReader> {
  const s = await SseReader.open(`${base2}/api/v1/events/stream`, auth(x.a.operator));
  expect(s.status).toBe(200);
  return s;
}
/** Sends `probe` then a frame of the directly granted camera and waits for that marker. */
async function deliveredBeforeMarker(s: SseReader, probeCamera: string): Promise<boolean> {
  const [probe, marker] = await send([
    { detector: 'probe', camera_id: probeCamera },
    { detector: 'marker', camera_id: direct },
  ]);
  await s.until((r) => r.events.some((e) => e.data.id === marker));
  return s.events.some((e) => e.data.id === probe);
}
// Notices reach a listener in commit order: once a marker sent after the action has arrived,
// every notice of the action has too. The marker names an organisation that does not exist.
const MARKER_ORG = '00000000-0000-4000-8000-000000000000';
async function settled(): Promise<number> {
  const seen = notices.length;
  await sql`select pg_notify(${channels.rights}, ${JSON.stringify({ org_id: MARKER_ORG })})`.execute(t.db.database.db);
  const until = Date.now() + 10_000;
  while (!notices.slice(seen).some((p) => p.includes(MARKER_ORG))) {
    if (Date.now() > until) throw new Error('marker notice not delivered');
    await new Promise((r) => setTimeout(r, 10));
  }
  return notices.length;
}
async function noticesAfter(n: number): Promise<string[]> {
  await settled();
  return notices.slice(n).filter((p) => !p.includes(MARKER_ORG));
}

beforeAll(async () => {
  t = await startPlane();
  two = await startPlane({ db: t.db });
  base2 = await two.plane.app.listen({ host: '127.0.0.1', port: 0 });
  x = await tenants(t);
  node = (
    await x.root.post('/api/v1/nodes', {
      name: unique('n'),
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    })
  ).body.id;
  tag = (await x.a.admin.post('/api/v1/tags', { name: unique('yard') })).body.id;
  direct = await camera([]);
  expect(
    (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [direct], tag_ids: [tag] })).status,
  ).toBe(200);
  mod = new Client(
    t.plane.app,
    (await x.a.admin.post('/api/v1/module-tokens', { name: unique('m'), rate_limit: 1_000_000 })).body.secret,
  );
  two.plane.services.bus.subscribe(channels.rights, (p) => notices.push(p));
  await new Promise((r) => setTimeout(r, 200));
});
afterAll(async () => {
  await two?.close();
  await t?.close();
});

describe('rights notices', () => {
  it('a camera that loses the tag that granted it: its next frame is not delivered', async () => {
    const cam = await camera([tag]);
    const s = await operatorStream();
    expect(await deliveredBeforeMarker(s, cam)).toBe(true);
    const n = await settled();
    const r = await x.a.admin.patch(`/api/v1/cameras/${cam}`, { tag_ids: [] });
    expect(r.status, r.text).toBe(200);
    expect(await deliveredBeforeMarker(s, cam)).toBe(false);
    // one notice for the transaction, naming the organisation only
    expect((await noticesAfter(n)).map((p) => JSON.parse(p))).toEqual([{ org_id: x.a.orgId }]);
    // and the tag given back: frames of the camera come again at once
    expect((await x.a.admin.patch(`/api/v1/cameras/${cam}`, { tag_ids: [tag] })).status).toBe(200);
    expect(await deliveredBeforeMarker(s, cam)).toBe(true);
    s.close();
  });

  it('a camera created with a granted tag is delivered at once', async () => {
    const s = await operatorStream();
    await deliveredBeforeMarker(s, direct); // the view is loaded before the camera exists
    const cam = await camera([tag]);
    expect(await deliveredBeforeMarker(s, cam)).toBe(true);
    s.close();
  });

  it('a deleted tag takes its rights with it at once', async () => {
    const other = (await x.a.admin.post('/api/v1/tags', { name: unique('gate') })).body.id;
    expect(
      (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [direct], tag_ids: [tag, other] }))
        .status,
    ).toBe(200);
    const cam = await camera([other]);
    const s = await operatorStream();
    expect(await deliveredBeforeMarker(s, cam)).toBe(true);
    const n = await settled();
    expect((await x.a.admin.del(`/api/v1/tags/${other}`)).status).toBe(200);
    expect(await deliveredBeforeMarker(s, cam)).toBe(false);
    expect((await noticesAfter(n)).map((p) => JSON.parse(p))).toEqual([{ org_id: x.a.orgId }]);
    s.close();
  });

  it('a deleted camera sends one notice for its organisation; a name change sends none', async () => {
    const cam = await camera([tag]);
    let n = await settled();
    expect((await x.a.admin.patch(`/api/v1/cameras/${cam}`, { name: unique('renamed') })).status).toBe(200);
    expect(await noticesAfter(n)).toEqual([]);
    n = await settled();
    expect((await x.a.admin.del(`/api/v1/cameras/${cam}`)).status).toBe(200);
    expect((await noticesAfter(n)).map((p) => JSON.parse(p))).toEqual([{ org_id: x.a.orgId }]);
  });

  it('a notice of one organisation leaves the streams of another as they were', async () => {
    const tagB = (await x.b.admin.post('/api/v1/tags', { name: unique('b') })).body.id;
    const n = await settled();
    expect((await x.b.admin.del(`/api/v1/tags/${tagB}`)).status).toBe(200);
    expect((await noticesAfter(n)).map((p) => JSON.parse(p))).toEqual([{ org_id: x.b.orgId }]);
    const s = await operatorStream();
    const cam = await camera([tag]);
    expect(await deliveredBeforeMarker(s, cam)).toBe(true);
    s.close();
  });
});
