import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CANARY, ManualClock, startPlane, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { NOT_FOUND, randomId, tenants, unique, type Tenants } from '../inventory.helpers.js';
import { OpsNode } from '../node-ops/ops-node.js';
import { SESSIONS_REPLY_FRESH_MS } from '../../../src/plane/viewer-sessions/viewer-sessions.service.js';

/**
 * GET /api/v1/sessions against fake nodes: the nodes asked (those hosting the caller's cameras,
 * by id, at most 4 per request), the 2 s time-out and `partial_nodes`, the cursor across and
 * within nodes, the re-check of every row against the database, and every parameter and error.
 */
const TOKEN = `sessions-token-${CANARY}-0123456789`;
let t: TestPlane;
let x: Tenants;
const clock = new ManualClock(Date.UTC(2026, 10, 23, 12, 0, 0, 250));
/** the nodes hosting organisation A's cameras, ascending by id */
let fleet: Array<{ id: string; name: string; fake: OpsNode; camera: string; cameraName: string }> = [];
let onlyB: { id: string; fake: OpsNode };
let cameraB: string;

async function addNode(fake: OpsNode, token = TOKEN) {
  const name = unique('sess-node');
  const r = await x.root.post('/api/v1/nodes', { name, url: fake.url, api_token: token });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id as string, name };
}
async function addCamera(admin: Client, nodeId: string) {
  const name = unique('sess-cam');
  const r = await admin.post('/api/v1/cameras', { name, node_id: nodeId, main_source: 'rtsp://10.0.0.1/a' });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id as string, name };
}
const resetRequests = () => {
  for (const n of [...fleet.map((f) => f.fake), onlyB.fake]) n.requests = [];
};
const askedNodes = () => fleet.filter((f) => f.fake.asked('/api/v1/sessions').length > 0).map((f) => f.id);

beforeAll(async () => {
  t = await startPlane({ clock });
  x = await tenants(t);
  const made = [];
  for (let i = 0; i < 6; i++) {
    const fake = await OpsNode.start(TOKEN);
    const n = await addNode(fake);
    const cam = await addCamera(x.a.admin, n.id);
    made.push({ ...n, fake, camera: cam.id, cameraName: cam.name });
  }
  fleet = made.sort((a, b) => (a.id < b.id ? -1 : 1));
  fleet.forEach((f, i) =>
    f.fake.viewer(`${f.camera}_main`, { started_at_ms: 1_700_000_000_000 + i, subject_name: `Viewer ${i}` }),
  );
  const fakeB = await OpsNode.start(TOKEN);
  onlyB = { id: (await addNode(fakeB)).id, fake: fakeB };
  cameraB = (await addCamera(x.b.admin, onlyB.id)).id;
  onlyB.fake.viewer(`${cameraB}_main`);
});
// A node's answer serves the requests of the next second (SESSIONS_REPLY_FRESH_MS): each test
// starts a second later, so its first request asks the nodes afresh.
beforeEach(() => clock.advance(SESSIONS_REPLY_FRESH_MS));
afterAll(async () => {
  for (const f of fleet) await f.fake.close();
  await onlyB?.fake.close();
  await t?.close();
});

/** Every page from the first, as `c` with `query`; each page's contacted nodes recorded. */
async function allPages(c: Client, query = '') {
  const pages: Array<{ body: any; asked: string[] }> = [];
  let cursor: string | null = null;
  do {
    resetRequests();
    const r = await c.get(`/api/v1/sessions?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status, r.text).toBe(200);
    pages.push({ body: r.body, asked: askedNodes() });
    cursor = r.body.next_cursor;
    expect(pages.length).toBeLessThan(40);
  } while (cursor !== null);
  return pages;
}

describe('who may call', () => {
  it('administrators: 401 without a session, 403 for an operator', async () => {
    expect((await x.anon.get('/api/v1/sessions')).status).toBe(401);
    expect((await x.a.operator.get('/api/v1/sessions')).status).toBe(403);
  });
});

describe('nodes asked, 4 per request, in id order', () => {
  it('the first page asks the first 4 nodes of the caller; the next page the other 2; never a node without its cameras', async () => {
    const pages = await allPages(x.a.admin);
    expect(pages).toHaveLength(2);
    expect(pages[0]!.asked).toEqual(fleet.slice(0, 4).map((f) => f.id));
    expect(pages[1]!.asked).toEqual(fleet.slice(4).map((f) => f.id));
    expect(pages[0]!.body.next_cursor).toEqual(expect.any(String));
    expect(pages[1]!.body.next_cursor).toBeNull();
    expect(onlyB.fake.asked('/api/v1/sessions')).toHaveLength(0);
    const items = pages.flatMap((p) => p.body.items);
    expect(items.map((i: any) => i.node_id)).toEqual(fleet.map((f) => f.id));
    expect(pages.every((p) => p.body.partial_nodes.length === 0)).toBe(true);
  });

  it('a row has the fields of document 1, named from the database; sampled_at is the clock in whole seconds', async () => {
    resetRequests();
    const r = await x.a.admin.get(`/api/v1/sessions?camera_id=${fleet[2]!.camera}`);
    expect(r.status, r.text).toBe(200);
    const f = fleet[2]!;
    expect(r.body).toEqual({
      items: [
        {
          stream: `${f.camera}_main`,
          protocol: 'hls',
          client_ip: '192.0.2.10',
          user_agent: 'TestPlayer/1.0',
          sub: '11111111-1111-4111-8111-111111111111',
          connected_ms: 5000,
          node_id: f.id,
          node_name: f.name,
          camera_id: f.camera,
          camera_name: f.cameraName,
          subject_kind: 'user',
          subject_id: '11111111-1111-4111-8111-111111111111',
          subject_name: 'Viewer 2',
        },
      ],
      limit: 50,
      next_cursor: null,
      partial_nodes: [],
      sampled_at: Math.floor(clock.now() / 1000),
    });
    expect(askedNodes()).toEqual([f.id]);
  });

  it('a superadmin sees every organisation: the node of B is asked too', async () => {
    const pages = await allPages(x.root);
    const items = pages.flatMap((p) => p.body.items);
    expect(items.map((i: any) => i.camera_id).sort()).toEqual([...fleet.map((f) => f.camera), cameraB].sort());
  });
});

describe('re-check of every row against the database', () => {
  it('a viewer of a camera the caller may not see, of a deleted camera or of a stream that is no camera is left out', async () => {
    const host = fleet[0]!.fake;
    const gone = await addCamera(x.a.admin, fleet[0]!.id);
    expect((await x.a.admin.del(`/api/v1/cameras/${gone.id}`)).status).toBe(200);
    const extra = [host.viewer(`${cameraB}_main`), host.viewer(`${gone.id}_sub`), host.viewer('lobby')];
    try {
      const items = (await allPages(x.a.admin)).flatMap((p) => p.body.items);
      expect(items.map((i: any) => i.camera_id)).toEqual(fleet.map((f) => f.camera));
      const rootItems = (await allPages(x.root)).flatMap((p) => p.body.items);
      expect(rootItems.filter((i: any) => i.camera_id === cameraB)).toHaveLength(2);
      expect(rootItems.some((i: any) => i.camera_id === gone.id || i.stream === 'lobby')).toBe(false);
    } finally {
      host.sessions = host.sessions.filter((s) => !extra.includes(s));
    }
  });
});

describe('parameters', () => {
  it('camera_id: only that camera and its node; a foreign, unknown or malformed camera is 404', async () => {
    resetRequests();
    const r = await x.a.admin.get(`/api/v1/sessions?camera_id=${fleet[4]!.camera.toUpperCase()}`);
    expect(r.body.items.map((i: any) => i.camera_id)).toEqual([fleet[4]!.camera]);
    expect(askedNodes()).toEqual([fleet[4]!.id]);
    for (const id of [cameraB, randomId(), 'nope']) {
      const f = await x.a.admin.get(`/api/v1/sessions?camera_id=${id}`);
      expect(f.status, id).toBe(404);
      expect(f.text).toBe(NOT_FOUND);
    }
  });

  it('q: case-insensitive over stream, protocol, client_ip, user_agent, sub, node_name, camera_name, subject_name; at most 128', async () => {
    const f = fleet[1]!;
    const hits = async (q: string) =>
      (await allPages(x.a.admin, `q=${encodeURIComponent(q)}`))
        .flatMap((p) => p.body.items)
        .map((i: any) => i.camera_id);
    expect(await hits(f.cameraName.toUpperCase())).toEqual([f.camera]);
    expect(await hits(f.name.toUpperCase())).toEqual([f.camera]);
    expect(await hits('viewer 1')).toEqual([f.camera]);
    expect(await hits(`${f.camera.slice(0, 8)}-`)).toEqual([f.camera]);
    expect(await hits('HLS')).toHaveLength(6);
    expect(await hits('192.0.2.10')).toHaveLength(6);
    expect(await hits('testplayer')).toHaveLength(6);
    expect(await hits('11111111-1111')).toHaveLength(6);
    expect(await hits('no such viewer')).toEqual([]);
    expect((await x.a.admin.get(`/api/v1/sessions?q=${'q'.repeat(128)}`)).status).toBe(200);
    const long = await x.a.admin.get(`/api/v1/sessions?q=${'q'.repeat(129)}`);
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ error: 'query_too_long' });
  });

  it('limit: 1..100, default 50; anything else 400 bad_limit; an unknown parameter 400 unknown_field', async () => {
    expect((await x.a.admin.get('/api/v1/sessions')).body.limit).toBe(50);
    expect((await x.a.admin.get('/api/v1/sessions?limit=100')).body.limit).toBe(100);
    for (const l of ['0', '101', 'x', '-1'])
      expect((await x.a.admin.get(`/api/v1/sessions?limit=${l}`)).body, l).toEqual({ error: 'bad_limit' });
    expect((await x.a.admin.get('/api/v1/sessions?org=1')).body).toEqual({ error: 'unknown_field' });
  });
});

describe('the cursor', () => {
  it('limit 1 walks every viewer once, in node then start order, never more than 4 nodes per request', async () => {
    fleet[3]!.fake.viewer(`${fleet[3]!.camera}_main`, { started_at_ms: 1_600_000_000_000, subject_name: 'Early' });
    try {
      const pages = await allPages(x.a.admin, 'limit=1');
      const items = pages.flatMap((p) => p.body.items);
      expect(items).toHaveLength(7);
      expect(pages.every((p) => p.asked.length <= 4 && p.body.items.length <= 1)).toBe(true);
      expect(items.map((i: any) => i.node_id)).toEqual(fleet.flatMap((f, i) => (i === 3 ? [f.id, f.id] : [f.id])));
      expect(items.filter((i: any) => i.node_id === fleet[3]!.id).map((i: any) => i.subject_name)).toEqual([
        'Early',
        'Viewer 3',
      ]);
    } finally {
      fleet[3]!.fake.sessions.pop();
    }
  });

  it('within one node: a page cut in the middle resumes after its last row', async () => {
    const f = fleet[5]!;
    for (let i = 0; i < 4; i++)
      f.fake.viewer(`${f.camera}_main`, { started_at_ms: 1_800_000_000_000, id: `same-start-${i}` });
    try {
      const pages = await allPages(x.a.admin, `camera_id=${f.camera}&limit=2`);
      expect(pages.map((p) => p.body.items.length)).toEqual([2, 2, 1]);
      const subjects = pages.flatMap((p) => p.body.items.map((i: any) => i.subject_name));
      expect(subjects).toEqual(['Viewer 5', 'Viewer One', 'Viewer One', 'Viewer One', 'Viewer One']);
    } finally {
      f.fake.sessions.splice(1);
    }
  });

  it('a cursor whose node no longer hosts a camera of the caller resumes at the next node', async () => {
    const first = await x.a.admin.get('/api/v1/sessions?limit=1');
    expect(first.body.items[0].node_id).toBe(fleet[0]!.id);
    const moved = await x.a.admin.patch(`/api/v1/cameras/${fleet[0]!.camera}`, { node_id: fleet[1]!.id });
    expect(moved.status, moved.text).toBe(200);
    try {
      resetRequests();
      clock.advance(SESSIONS_REPLY_FRESH_MS); // the nodes' answers to the first page no longer serve
      const next = await x.a.admin.get(`/api/v1/sessions?limit=1&cursor=${first.body.next_cursor}`);
      expect(next.status, next.text).toBe(200);
      expect(next.body.items.map((i: any) => i.node_id)).toEqual([fleet[1]!.id]);
      expect(askedNodes()).toEqual(fleet.slice(1, 5).map((f) => f.id));
    } finally {
      expect((await x.a.admin.patch(`/api/v1/cameras/${fleet[0]!.camera}`, { node_id: fleet[0]!.id })).status).toBe(
        200,
      );
    }
  });

  it('a cursor that is not ours, altered, or given with other filters or by another caller: 400 bad_cursor', async () => {
    const first = await x.a.admin.get('/api/v1/sessions?limit=1');
    const cursor = first.body.next_cursor as string;
    const doc = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const forged = (over: object) => Buffer.from(JSON.stringify({ ...doc, ...over })).toString('base64url');
    const bad = [
      'garbage!!',
      'e30',
      Buffer.from('not json').toString('base64url'),
      forged({ n: 'x' }),
      forged({ s: -1 }),
      forged({ v: 2 }),
      forged({ extra: 1 }),
      forged({ s: 5, i: null }),
      'a'.repeat(1100),
    ];
    for (const c of bad)
      expect((await x.a.admin.get(`/api/v1/sessions?limit=1&cursor=${c}`)).body, c).toEqual({ error: 'bad_cursor' });
    expect((await x.a.admin.get(`/api/v1/sessions?limit=1&q=hls&cursor=${cursor}`)).body).toEqual({
      error: 'bad_cursor',
    });
    expect(
      (await x.a.admin.get(`/api/v1/sessions?limit=1&camera_id=${fleet[0]!.camera}&cursor=${cursor}`)).body,
    ).toEqual({ error: 'bad_cursor' });
    expect((await x.root.get(`/api/v1/sessions?limit=1&cursor=${cursor}`)).body).toEqual({ error: 'bad_cursor' });
    expect((await x.a.admin.get(`/api/v1/sessions?limit=1&cursor=${cursor}`)).status).toBe(200);
  });
});

describe('nodes that fail', () => {
  it('a node that does not answer within 2 s is skipped and listed in partial_nodes; the others are asked at the same time', async () => {
    fleet[1]!.fake.mode = 'hang';
    try {
      resetRequests();
      const started = Date.now();
      const r = await x.a.admin.get('/api/v1/sessions');
      const took = Date.now() - started;
      expect(r.status, r.text).toBe(200);
      expect(r.body.partial_nodes).toEqual([fleet[1]!.id]);
      expect(r.body.items.map((i: any) => i.node_id)).toEqual([fleet[0]!.id, fleet[2]!.id, fleet[3]!.id]);
      expect(took).toBeGreaterThanOrEqual(1900);
      expect(took).toBeLessThan(3900);
    } finally {
      fleet[1]!.fake.mode = 'up';
    }
  }, 15_000);

  it('a request that comes while a call to a node is out joins it: the node is asked once; a failure is not kept, the next request asks again', async () => {
    fleet[1]!.fake.mode = 'hang';
    try {
      resetRequests();
      const first = x.a.admin.get('/api/v1/sessions');
      // Waits on the condition (no fixed sleep): the first request's call to the hanging node is out.
      while (fleet[1]!.fake.asked('/api/v1/sessions').length === 0) await new Promise((r) => setTimeout(r, 10));
      const second = x.a.admin.get('/api/v1/sessions');
      const [a, b] = await Promise.all([first, second]);
      expect(a.body.partial_nodes).toEqual([fleet[1]!.id]);
      expect(b.body.partial_nodes).toEqual([fleet[1]!.id]);
      expect(fleet[1]!.fake.asked('/api/v1/sessions')).toHaveLength(1);
    } finally {
      fleet[1]!.fake.mode = 'up';
    }
    const again = await x.a.admin.get('/api/v1/sessions');
    expect(again.body.partial_nodes).toEqual([]);
    expect(fleet[1]!.fake.asked('/api/v1/sessions')).toHaveLength(2);
  }, 30_000);

  it('an answer serves the requests of the next second, its age in sampled_at and connected_ms; then, or with the clock stepped back, the node is asked again', async () => {
    resetRequests();
    const f = fleet[2]!;
    const asked = () => f.fake.asked('/api/v1/sessions').length;
    const page = `/api/v1/sessions?camera_id=${f.camera}`;
    const first = (await x.a.admin.get(page)).body;
    const sampled = Math.floor(clock.now() / 1000);
    expect(first.items[0].connected_ms).toBe(5000);
    clock.advance(SESSIONS_REPLY_FRESH_MS - 1);
    const kept = (await x.a.admin.get(page)).body;
    expect(asked()).toBe(1);
    expect(kept.items[0].connected_ms).toBe(5000 + SESSIONS_REPLY_FRESH_MS - 1);
    expect(kept.sampled_at).toBe(sampled);
    // Every request re-checks the rows against its own rights, a kept answer too, and names them now.
    expect((await x.b.admin.get('/api/v1/sessions')).body.items.map((i: any) => i.camera_id)).toEqual([cameraB]);
    const renamed = `${f.cameraName} "renamed"`;
    expect((await x.a.admin.patch(`/api/v1/cameras/${f.camera}`, { name: renamed })).status).toBe(200);
    try {
      expect((await x.a.admin.get(page)).body.items[0].camera_name).toBe(renamed);
      expect(asked()).toBe(1);
    } finally {
      expect((await x.a.admin.patch(`/api/v1/cameras/${f.camera}`, { name: f.cameraName })).status).toBe(200);
    }
    clock.advance(1);
    const fresh = (await x.a.admin.get(page)).body;
    expect(asked()).toBe(2);
    expect(fresh.items[0].connected_ms).toBe(5000);
    expect(fresh.sampled_at).toBe(Math.floor(clock.now() / 1000));
    clock.advance(-60_000);
    await x.a.admin.get(page);
    expect(asked()).toBe(3);
    clock.advance(60_000);
  });

  it('a node that refuses the token or answers nonsense is listed in partial_nodes', async () => {
    fleet[0]!.fake.mode = 'forbid';
    fleet[2]!.fake.mode = 'garbage';
    fleet[3]!.fake.mode = 'error';
    try {
      const r = await x.a.admin.get('/api/v1/sessions');
      expect(r.body.partial_nodes).toEqual([fleet[0]!.id, fleet[2]!.id, fleet[3]!.id]);
      expect(r.body.items.map((i: any) => i.node_id)).toEqual([fleet[1]!.id]);
      expect(r.body.next_cursor).not.toBeNull();
    } finally {
      for (const f of fleet) f.fake.mode = 'up';
    }
  });

  it('no secret in replies or logs', async () => {
    expect(t.logs.text).not.toContain(TOKEN);
  });

  it('a stored node URL that makes no request URL: 500 url_build_failed', async () => {
    await t.db.database.db.updateTable('nodes').set({ url: 'ftp://broken' }).where('id', '=', fleet[0]!.id).execute();
    const r = await x.a.admin.get('/api/v1/sessions');
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: 'url_build_failed' });
    // Its cameras filtered away, the other nodes still answer.
    expect((await x.a.admin.get(`/api/v1/sessions?camera_id=${fleet[1]!.camera}`)).status).toBe(200);
  });
});
