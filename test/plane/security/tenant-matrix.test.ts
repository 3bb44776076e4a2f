import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startPlane, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { seedOrg, seedUser } from '../fixtures.js';
import sharp from 'sharp';
import { OpsNode } from '../node-ops/ops-node.js';
import { ExportNode } from '../exports/export-node.js';
import { makeMp4 } from '../exports/mp4.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Tenant isolation, generated from the OpenAPI route list: every route with a path id is tried
 * as each actor on an object of organisation A. An actor without access must get exactly the
 * answer it gets for an id that does not exist (status and bytes), so a foreign object is
 * indistinguishable from a missing one. A new route without an entry here fails the generator. */
type Actor = 'superadmin' | 'adminA' | 'operatorA' | 'adminB' | 'operatorB' | 'anonymous';
const ACTORS: Actor[] = ['anonymous', 'operatorB', 'adminB', 'operatorA', 'adminA', 'superadmin'];

interface Ctx {
  root: Client;
  adminA: Client;
  orgA: string;
  nodeId: string;
  t: TestPlane;
}
interface Entry {
  /** creates the org-A object; returns its id and any query string the route needs */
  make(ctx: Ctx): Promise<{ id: string; query?: string }>;
  body?: unknown;
  /** actors that may act on org A's object */
  allowed: Actor[];
}

const uniq = () => randomUUID().slice(0, 8);
const makeTag = async (c: Ctx) => ({ id: (await c.adminA.post('/api/v1/tags', { name: `tag-${uniq()}` })).body.id });
const makeUser = async (c: Ctx) => ({
  id: (
    await c.adminA.post('/api/v1/users', { login: `u-${uniq()}`, name: 'u', password: 'long-enough-1', role: 'user' })
  ).body.id,
});
const makeCamera = async (c: Ctx) => ({
  id: (
    await c.adminA.post('/api/v1/cameras', {
      name: `cam-${uniq()}`,
      node_id: c.nodeId,
      main_source: 'rtsp://10.0.0.1/a',
    })
  ).body.id,
});
const makePlayable = async (c: Ctx) => {
  const node = (
    await c.root.post('/api/v1/nodes', {
      name: `n-${uniq()}`,
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
      auth_backend_secret: 'viewer-secret-123456',
    })
  ).body.id;
  return {
    id: (
      await c.adminA.post('/api/v1/cameras', { name: `cam-${uniq()}`, node_id: node, main_source: 'rtsp://10.0.0.1/a' })
    ).body.id,
  };
};
const makeNode = async (c: Ctx) => ({
  id: (
    await c.root.post('/api/v1/nodes', {
      name: `n-${uniq()}`,
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    })
  ).body.id,
});
// a node that answers the per-node routes (a fake one, closed with the plane)
const opsNodes: OpsNode[] = [];
const makeOpsNode = async (c: Ctx) => {
  const fake = await OpsNode.start();
  opsNodes.push(fake);
  return {
    id: (await c.root.post('/api/v1/nodes', { name: `n-${uniq()}`, url: fake.url, api_token: fake.token })).body.id,
  };
};
const makeOrg = async (c: Ctx) => ({ id: (await c.root.post('/api/v1/orgs', { name: `o-${uniq()}` })).body.id });
const makeModuleToken = async (c: Ctx) => ({
  id: (await c.adminA.post('/api/v1/module-tokens', { name: `mt-${uniq()}` })).body.id,
});
const makeEvent = async (c: Ctx, interval = false) => {
  const secret = (await c.adminA.post('/api/v1/module-tokens', { name: `ev-${uniq()}` })).body.secret;
  const r = await c.adminA.as(secret).post('/api/v1/events', {
    events: [{ detector: 'matrix', occurred_at: new Date(Date.now() - 1000).toISOString(), interval }],
  });
  return { id: r.body.results[0].id };
};
const makeTemplate = async (c: Ctx) => ({
  id: (await c.adminA.post('/api/v1/templates', { name: `tp-${uniq()}`, doc: { detector_match: 'matrix.*' } })).body.id,
});
// Saved reports, dashboards and widgets of organisation A seen by its administrators only (visibility admins).
const DEFINITION = { period: 'last_24h', measure: 'count_events' };
const makeReport = async (c: Ctx) => ({
  id: (
    await c.adminA.post('/api/v1/analytics-reports', {
      name: `r-${uniq()}`,
      definition: DEFINITION,
      visibility: 'admins',
    })
  ).body.id,
});
const makeDashboard = async (c: Ctx) => ({
  id: (await c.adminA.post('/api/v1/analytics-dashboards', { name: `d-${uniq()}`, visibility: 'admins' })).body.id,
});
const makeWidget = async (c: Ctx) => {
  const d = await makeDashboard(c);
  return {
    id: (
      await c.adminA.post(`/api/v1/analytics-dashboards/${d.id}/widgets`, {
        title: 'w',
        visualization: 'kpi',
        inline_definition: DEFINITION,
      })
    ).body.id,
  };
};
const makeAttachment = async (c: Ctx) => {
  const secret = (await c.adminA.post('/api/v1/module-tokens', { name: `at-${uniq()}` })).body.secret;
  const r = await c.t.plane.app.inject({
    method: 'POST',
    url: '/api/v1/attachments',
    payload: Buffer.from('matrix'),
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'image/png' },
  });
  return { id: r.json().ref };
};
// an unbound image attachment with its preview built
const makePreviewed = async (c: Ctx) => {
  const secret = (await c.adminA.post('/api/v1/module-tokens', { name: `pv-${uniq()}` })).body.secret;
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
    .png()
    .toBuffer();
  const r = await c.t.plane.app.inject({
    method: 'POST',
    url: '/api/v1/attachments',
    payload: png,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'image/png' },
  });
  await c.t.plane.services.previews.builder.idle();
  return { id: r.json().ref };
};
const makeCleanupJob = async (c: Ctx) => {
  const event = await makeEvent(c);
  return { id: (await c.root.post('/api/v1/events/purge', { event_ids: [event.id] })).body.id };
};
const makeAudit = async (c: Ctx) => {
  const row = (await c.adminA.get('/api/v1/audit?limit=1')).body.rows[0];
  return { id: row.id, query: `occurred_at=${encodeURIComponent(row.occurred_at)}` };
};

// A camera on a node that serves exports (a fake one, closed with the plane), for the plane's export route.
const exportNodes: ExportNode[] = [];
const makeExportable = async (c: Ctx) => {
  const node = await ExportNode.start('matrix-viewer-secret-123456');
  exportNodes.push(node);
  node.file = join(await mkdtemp(join(tmpdir(), 'argus-matrix-')), 'export.mp4');
  await makeMp4(node.file, 1);
  const nodeId = (
    await c.root.post('/api/v1/nodes', {
      name: `n-${uniq()}`,
      url: node.url,
      api_token: 'node-write-token-123456',
      auth_backend_secret: node.secret,
    })
  ).body.id;
  const camera = await c.adminA.post('/api/v1/cameras', {
    name: `cam-${uniq()}`,
    node_id: nodeId,
    main_source: 'rtsp://10.0.0.1/a',
  });
  const from = encodeURIComponent(new Date(Date.now() - 60_000).toISOString());
  return { id: camera.body.id, query: `from=${from}&duration=1&stream=main` };
};
// Notification rules and channels of organisation A; a delivery that is dead (the test message to a port nothing answers).
const makeChannel = async (c: Ctx) => {
  const r = await c.adminA.post('/api/v1/notification-channels', {
    name: `ch-${uniq()}`,
    kind: 'webhook',
    url: 'http://127.0.0.1:9/hook',
    secret: 'matrix-hook-secret-123456',
  });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id as string };
};
const makeRule = async (c: Ctx) => ({
  id: (
    await c.adminA.post('/api/v1/notification-rules', {
      name: `rule-${uniq()}`,
      channel_ids: [(await makeChannel(c)).id],
    })
  ).body.id,
});
const makeDeadDelivery = async (c: Ctx) => {
  const channel = await makeChannel(c);
  return { id: (await c.adminA.post(`/api/v1/notification-channels/${channel.id}/test`)).body.id };
};

export const MATRIX: Record<string, Entry> = {
  'GET /api/v1/audit/{id}': { make: makeAudit, allowed: ['superadmin', 'adminA'] },
  'PATCH /api/v1/orgs/{id}': { make: makeOrg, body: { name: `renamed-${uniq()}` }, allowed: ['superadmin'] },
  'DELETE /api/v1/orgs/{id}': { make: makeOrg, allowed: ['superadmin'] },
  'PATCH /api/v1/users/{id}': { make: makeUser, body: { name: 'renamed' }, allowed: ['superadmin', 'adminA'] },
  'DELETE /api/v1/users/{id}': { make: makeUser, allowed: ['superadmin', 'adminA'] },
  'GET /api/v1/users/{id}/grants': { make: makeUser, allowed: ['superadmin', 'adminA'] },
  'PUT /api/v1/users/{id}/grants': {
    make: makeUser,
    body: { camera_ids: [], tag_ids: [] },
    allowed: ['superadmin', 'adminA'],
  },
  'PATCH /api/v1/tags/{id}': { make: makeTag, body: { name: `t-${uniq()}` }, allowed: ['superadmin', 'adminA'] },
  'DELETE /api/v1/tags/{id}': { make: makeTag, allowed: ['superadmin', 'adminA'] },
  'PATCH /api/v1/nodes/{id}': { make: makeNode, body: { enabled: false }, allowed: ['superadmin'] },
  'DELETE /api/v1/nodes/{id}': { make: makeNode, allowed: ['superadmin'] },
  'GET /api/v1/cameras/{id}': { make: makeCamera, allowed: ['superadmin', 'adminA'] },
  'PATCH /api/v1/cameras/{id}': { make: makeCamera, body: { name: 'renamed' }, allowed: ['superadmin', 'adminA'] },
  'DELETE /api/v1/cameras/{id}': { make: makeCamera, allowed: ['superadmin', 'adminA'] },
  'POST /api/v1/cameras/{id}/play': { make: makePlayable, body: {}, allowed: ['superadmin', 'adminA'] },
  'GET /api/v1/cameras/{id}/export': { make: makeExportable, allowed: ['superadmin', 'adminA'] },
  'GET /api/v1/notification-rules/{id}': { make: makeRule, allowed: ['superadmin', 'adminA'] },
  'PATCH /api/v1/notification-rules/{id}': {
    make: makeRule,
    body: { revision: 1, name: 'renamed' },
    allowed: ['superadmin', 'adminA'],
  },
  'DELETE /api/v1/notification-rules/{id}': { make: makeRule, allowed: ['superadmin', 'adminA'] },
  'GET /api/v1/notification-channels/{id}': { make: makeChannel, allowed: ['superadmin', 'adminA'] },
  'PATCH /api/v1/notification-channels/{id}': {
    make: makeChannel,
    body: { revision: 1, name: 'renamed' },
    allowed: ['superadmin', 'adminA'],
  },
  'DELETE /api/v1/notification-channels/{id}': { make: makeChannel, allowed: ['superadmin', 'adminA'] },
  'POST /api/v1/notification-channels/{id}/test': { make: makeChannel, allowed: ['superadmin', 'adminA'] },
  'POST /api/v1/notification-deliveries/{id}/retry': { make: makeDeadDelivery, allowed: ['superadmin', 'adminA'] },
  'PATCH /api/v1/module-tokens/{id}': {
    make: makeModuleToken,
    body: { rate_limit: 5 },
    allowed: ['superadmin', 'adminA'],
  },
  'POST /api/v1/module-tokens/{id}/rotate': { make: makeModuleToken, allowed: ['superadmin', 'adminA'] },
  'DELETE /api/v1/module-tokens/{id}': { make: makeModuleToken, allowed: ['superadmin', 'adminA'] },
  // a camera-less event: administrators of its organisation see it, an operator (no camera rights to it) does not
  'GET /api/v1/events/{id}': { make: (c) => makeEvent(c), allowed: ['superadmin', 'adminA'] },
  'PATCH /api/v1/events/{id}': {
    make: (c) => makeEvent(c, true),
    body: { ended_at: new Date(Date.now() + 5 * 60_000).toISOString() },
    allowed: ['superadmin', 'adminA'],
  },
  'POST /api/v1/events/{id}/star': { make: (c) => makeEvent(c), allowed: ['superadmin', 'adminA'] },
  // an attachment no event references yet: its organisation's administrators only
  'GET /api/v1/attachments/{ref}': { make: makeAttachment, allowed: ['superadmin', 'adminA'] },
  'GET /api/v1/attachments/{ref}/preview': { make: makePreviewed, allowed: ['superadmin', 'adminA'] },
  'DELETE /api/v1/events/{id}/star': { make: (c) => makeEvent(c), allowed: ['superadmin', 'adminA'] },
  // a cleanup job (event purge): superadmin only
  'GET /api/v1/cleanup-jobs/{id}': { make: makeCleanupJob, allowed: ['superadmin'] },
  // an organisation template: its administrators and superadmins; operators are refused by role (403 either way)
  'GET /api/v1/templates/{id}': { make: makeTemplate, allowed: ['superadmin', 'adminA'] },
  // saved reports, dashboards, widgets (visibility admins): operators are refused by role on writes (403 either way)
  'GET /api/v1/analytics-reports/{id}': { make: makeReport, allowed: ['superadmin', 'adminA'] },
  'PATCH /api/v1/analytics-reports/{id}': {
    make: makeReport,
    body: { revision: 1, name: 'renamed' },
    allowed: ['superadmin', 'adminA'],
  },
  'DELETE /api/v1/analytics-reports/{id}': { make: makeReport, allowed: ['superadmin', 'adminA'] },
  'GET /api/v1/analytics-reports/{id}/run': { make: makeReport, allowed: ['superadmin', 'adminA'] },
  'GET /api/v1/analytics-dashboards/{id}': { make: makeDashboard, allowed: ['superadmin', 'adminA'] },
  'PATCH /api/v1/analytics-dashboards/{id}': {
    make: makeDashboard,
    body: { revision: 1, name: 'renamed' },
    allowed: ['superadmin', 'adminA'],
  },
  'DELETE /api/v1/analytics-dashboards/{id}': { make: makeDashboard, allowed: ['superadmin', 'adminA'] },
  'POST /api/v1/analytics-dashboards/{id}/widgets': {
    make: makeDashboard,
    body: { title: 't', visualization: 'bar', inline_definition: DEFINITION },
    allowed: ['superadmin', 'adminA'],
  },
  'PATCH /api/v1/analytics-widgets/{id}': {
    make: makeWidget,
    body: { revision: 1, title: 'renamed' },
    allowed: ['superadmin', 'adminA'],
  },
  'DELETE /api/v1/analytics-widgets/{id}': { make: makeWidget, allowed: ['superadmin', 'adminA'] },
  'PATCH /api/v1/templates/{id}': { make: makeTemplate, body: { enabled: false }, allowed: ['superadmin', 'adminA'] },
  'DELETE /api/v1/templates/{id}': { make: makeTemplate, allowed: ['superadmin', 'adminA'] },
  'GET /api/v1/templates/{id}/matches': { make: makeTemplate, allowed: ['superadmin', 'adminA'] },
  'GET /api/v1/nodes/{id}/logs': { make: makeOpsNode, allowed: ['superadmin'] },
  'GET /api/v1/nodes/{id}/sessions': { make: makeOpsNode, allowed: ['superadmin'] },
  'GET /api/v1/nodes/{id}/config': { make: makeOpsNode, allowed: ['superadmin'] },
  'PATCH /api/v1/nodes/{id}/config/globals': {
    make: makeOpsNode,
    body: { log_level: 'info' },
    allowed: ['superadmin'],
  },
  'GET /api/v1/nodes/{id}/logging': { make: makeOpsNode, allowed: ['superadmin'] },
  'PATCH /api/v1/nodes/{id}/logging': { make: makeOpsNode, body: { level: 'info' }, allowed: ['superadmin'] },
  'GET /api/v1/nodes/{id}/license': { make: makeOpsNode, allowed: ['superadmin'] },
  'GET /api/v1/nodes/{id}/config/history': { make: makeOpsNode, allowed: ['superadmin'] },
  'POST /api/v1/nodes/{id}/config/rollback': { make: makeOpsNode, body: { epoch: 1 }, allowed: ['superadmin'] },
};

let t: TestPlane;
let ctx: Ctx;
let clients: Record<Actor, Client>;
let routes: string[];

beforeAll(async () => {
  t = await startPlane({ config: { loginThrottle: { attempts: 1000, windowSecs: 60 } } });
  const db = t.db.database.db;
  const orgA = await seedOrg(db, 'tenant-a');
  const orgB = await seedOrg(db, 'tenant-b');
  const app = t.plane.app;
  clients = {
    superadmin: await login(app),
    adminA: await login(app, await seedUser(db, orgA, 'admin', 'm-admin-a')),
    operatorA: await login(app, await seedUser(db, orgA, 'user', 'm-operator-a')),
    adminB: await login(app, await seedUser(db, orgB, 'admin', 'm-admin-b')),
    operatorB: await login(app, await seedUser(db, orgB, 'user', 'm-operator-b')),
    anonymous: new Client(app),
  };
  const nodeId = (await makeNode({ root: clients.superadmin } as Ctx)).id;
  ctx = { root: clients.superadmin, adminA: clients.adminA, orgA, nodeId, t };
  const doc = (await clients.anonymous.get('/api/v1/openapi.json')).body;
  routes = [];
  for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
    // A signed snapshot link is its own right, for anyone who holds it: notifications/snapshots.test.ts.
    if (!/\{[a-z_]+\}/.test(path) || path.startsWith('/api/v1/notification-snapshots/')) continue;
    for (const method of Object.keys(item)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) routes.push(`${method.toUpperCase()} ${path}`);
    }
  }
});
afterAll(async () => {
  await t?.close();
  for (const n of opsNodes) await n.close();
  for (const n of exportNodes) await n.close();
});

describe('tenant isolation matrix', () => {
  it('has an entry for every route with a path id in the OpenAPI document', () => {
    expect(routes.length).toBeGreaterThan(10);
    const missing = routes.filter((r) => !(r in MATRIX));
    expect(missing, `routes without a tenant-matrix entry: ${missing.join(', ')}`).toEqual([]);
    const stale = Object.keys(MATRIX).filter((r) => !routes.includes(r));
    expect(stale).toEqual([]);
  });

  it.each(Object.keys(MATRIX))('%s: foreign or unauthorised is indistinguishable from missing', async (route) => {
    const entry = MATRIX[route]!;
    const [method, path] = route.split(' ') as [string, string];
    const target = await entry.make(ctx);
    expect(target.id, `fixture for ${route}`).toMatch(/^[0-9a-f-]{36}$/);
    const url = (id: string) => path.replace(/\{[a-z_]+\}/, id) + (target.query ? `?${target.query}` : '');
    const ghost = randomUUID();
    // Actors without access first (a DELETE by an allowed actor removes the object).
    for (const actor of ACTORS.filter((a) => !entry.allowed.includes(a))) {
      const c = clients[actor];
      const real = await c.req(method as any, url(target.id), entry.body);
      const missing = await c.req(method as any, url(ghost), entry.body);
      expect([401, 403, 404], `${actor} ${route}`).toContain(real.status);
      expect(real.status, `${actor} ${route} status vs missing`).toBe(missing.status);
      expect(real.text, `${actor} ${route} body vs missing`).toBe(missing.text);
      if (actor === 'anonymous') expect(real.body).toEqual({ error: 'unauthorized' });
      if (actor === 'adminB' || actor === 'operatorB') expect(real.status).not.toBe(401);
    }
    const allowed = entry.allowed[entry.allowed.length - 1]!;
    const ok = await clients[allowed].req(method as any, url(target.id), entry.body);
    expect(ok.status, `${allowed} ${route}: ${ok.text}`).toBeGreaterThanOrEqual(200);
    expect(ok.status).toBeLessThan(300);
    const gone = await clients[allowed].req(method as any, url(ghost), entry.body);
    expect(gone.status, `${allowed} ${route} on a missing id`).toBe(404);
    expect(gone.body).toEqual({ error: 'not_found' });
  });

  it('shows an operator a granted camera and nothing else of its organisation', async () => {
    const cam = await makeCamera(ctx);
    const other = await makeCamera(ctx);
    const op = (await clients.operatorA.get('/api/v1/auth/me')).body.user.id;
    expect((await clients.adminA.put(`/api/v1/users/${op}/grants`, { camera_ids: [cam.id], tag_ids: [] })).status).toBe(
      200,
    );
    expect((await clients.operatorA.get(`/api/v1/cameras/${cam.id}`)).status).toBe(200);
    const hidden = await clients.operatorA.get(`/api/v1/cameras/${other.id}`);
    const missing = await clients.operatorA.get(`/api/v1/cameras/${randomUUID()}`);
    expect(hidden.status).toBe(404);
    expect(hidden.text).toBe(missing.text);
    const list = (await clients.operatorA.get('/api/v1/cameras')).body.rows.map((r: any) => r.id);
    expect(list).toEqual([cam.id]);
  });
});
