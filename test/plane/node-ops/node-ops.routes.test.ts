import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY, startPlane, type TestPlane } from '../harness.js';
import { freePort } from '../../node/helpers/node-process.js';
import { lastAudit, NOT_FOUND, randomId, tenants, unique, type Tenants } from '../inventory.helpers.js';
import { OpsNode } from './ops-node.js';

/** The per-node routes of document 4 §9 against a fake node: forwarding, validation, audit, the 502s, and no secret anywhere. */
const TOKEN = `ops-token-${CANARY}-0123456789`;
let t: TestPlane;
let x: Tenants;
let node: OpsNode;
let nodeId: string;

async function addNode(url: string, token = TOKEN): Promise<string> {
  const r = await x.root.post('/api/v1/nodes', { name: unique('ops'), url, api_token: token });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  node = await OpsNode.start(TOKEN);
  nodeId = await addNode(node.url);
});
afterAll(async () => {
  await node?.close();
  await t?.close();
});

const ROUTES = ['logs', 'sessions', 'config', 'logging', 'license'];

describe('who may call', () => {
  it('superadmin only: 401 without a session, 403 for an administrator and an operator; unknown or malformed node 404', async () => {
    for (const r of ROUTES) {
      expect((await x.anon.get(`/api/v1/nodes/${nodeId}/${r}`)).status).toBe(401);
      expect((await x.a.admin.get(`/api/v1/nodes/${nodeId}/${r}`)).status).toBe(403);
      expect((await x.a.operator.get(`/api/v1/nodes/${nodeId}/${r}`)).status).toBe(403);
      for (const id of [randomId(), 'not-a-uuid']) {
        const res = await x.root.get(`/api/v1/nodes/${id}/${r}`);
        expect(res.status, r).toBe(404);
        expect(res.text).toBe(NOT_FOUND);
      }
    }
    expect((await x.a.admin.patch(`/api/v1/nodes/${nodeId}/config/globals`, { log_level: 'info' })).status).toBe(403);
    expect((await x.a.admin.patch(`/api/v1/nodes/${nodeId}/logging`, { level: 'info' })).status).toBe(403);
    expect((await x.root.patch(`/api/v1/nodes/${randomId()}/logging`, { level: 'info' })).status).toBe(404);
    expect((await x.root.patch(`/api/v1/nodes/${randomId()}/config/globals`, { log_level: 'info' })).status).toBe(404);
  });

  it('GET /api/v1/nodes/{id} still answers 405', async () => {
    const r = await x.root.get(`/api/v1/nodes/${nodeId}`);
    expect(r.status).toBe(405);
  });
});

describe('GET /api/v1/nodes/{id}/logs', () => {
  it('forwards level, target, q, after and limit with the write token; answers the node page', async () => {
    node.requests = [];
    const r = await x.root.get(
      `/api/v1/nodes/${nodeId}/logs?level=warn&target=argus_node&q=Disk%20full&after=12&limit=30`,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      head_seq: 7,
      capacity: 4096,
      entries: [{ seq: 7, ts_ms: 1_700_000_000_000, level: 'info', target: 'argus_node', message: 'hello' }],
    });
    const asked = node.asked('/api/v1/logs');
    expect(asked).toHaveLength(1);
    expect(Object.fromEntries(asked[0]!.query)).toEqual({
      level: 'warn',
      target: 'argus_node',
      q: 'Disk full',
      after: '12',
      limit: '30',
    });
    expect(asked[0]!.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('the default limit is 500; level all passes', async () => {
    node.requests = [];
    expect((await x.root.get(`/api/v1/nodes/${nodeId}/logs?level=all`)).status).toBe(200);
    expect(Object.fromEntries(node.asked('/api/v1/logs')[0]!.query)).toEqual({ level: 'all', limit: '500' });
  });

  it('validates the query as the plane log does, before asking the node', async () => {
    node.requests = [];
    const cases: Array<[string, string]> = [
      ['level=verbose', 'bad_level'],
      [`target=${'t'.repeat(129)}`, 'log_filter_too_long'],
      [`q=${'q'.repeat(129)}`, 'log_filter_too_long'],
      ['after=-1', 'bad_after'],
      ['after=abc', 'bad_after'],
      ['limit=0', 'bad_limit'],
      ['limit=1001', 'bad_limit'],
      ['limit=x', 'bad_limit'],
      ['since=1', 'unknown_field'],
    ];
    for (const [q, code] of cases) {
      const r = await x.root.get(`/api/v1/nodes/${nodeId}/logs?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body, q).toEqual({ error: code });
    }
    for (const ok of [`target=${'t'.repeat(128)}`, `q=${'q'.repeat(128)}`, 'limit=1', 'limit=1000', 'after=0']) {
      expect((await x.root.get(`/api/v1/nodes/${nodeId}/logs?${ok}`)).status, ok).toBe(200);
    }
    expect(node.asked('/api/v1/logs')).toHaveLength(5);
  });
});

describe('sessions, licence', () => {
  it('GET sessions answers the node rows as it reports them', async () => {
    node.sessions = [];
    const row = node.viewer('cam_main');
    const r = await x.root.get(`/api/v1/nodes/${nodeId}/sessions`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ rows: [row] });
  });

  it('GET license answers {state, licensee, expires, updates_until, build_date}; fields a node leaves out are null', async () => {
    let r = await x.root.get(`/api/v1/nodes/${nodeId}/license`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual(node.license);
    const saved = node.license;
    node.license = { state: 'none' };
    r = await x.root.get(`/api/v1/nodes/${nodeId}/license`);
    expect(r.body).toEqual({ state: 'none', licensee: null, expires: null, updates_until: null, build_date: null });
    node.license = saved;
  });
});

describe('config, globals, logging', () => {
  it('GET config answers the node config, not cached, audited as node.config_read', async () => {
    const r = await x.root.get(`/api/v1/nodes/${nodeId}/config`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      text: node.configText,
      version: '9.9.9',
      epoch: node.epoch,
      hash: `h${node.epoch}`,
    });
    expect(r.headers['cache-control']).toBe('no-store');
    const a = await lastAudit(x.root, 'node.config_read', nodeId);
    expect(a).toMatchObject({
      action: 'node.config_read',
      object_type: 'node',
      object_id: nodeId,
      node_id: nodeId,
      params: { epoch: node.epoch },
    });
  });

  it('PATCH config/globals forwards the body, answers the node reply; node.update names the auth fields, never their values', async () => {
    node.requests = [];
    const body = {
      cluster_id: 'c1',
      trusted_proxies: ['10.0.0.0/8'],
      auth: { api_write_token: `new-${CANARY}-token`, admin_password: `pw-${CANARY}` },
    };
    node.globalsReply = { status: 200, body: { epoch: 42, hash: 'h42', changed: true } };
    const r = await x.root.patch(`/api/v1/nodes/${nodeId}/config/globals`, body);
    node.globalsReply = null;
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ epoch: 42, hash: 'h42', changed: true });
    expect(node.asked('/api/v1/config/globals')[0]!.body).toEqual(body);
    const a = await lastAudit(x.root, 'node.update', nodeId);
    expect(a.params).toEqual({
      changed: ['cluster_id', 'trusted_proxies', 'auth'],
      epoch: 42,
      cluster_id: 'c1',
      trusted_proxies: ['10.0.0.0/8'],
      auth_fields: ['admin_password', 'api_write_token'],
    });
    expect(JSON.stringify(a)).not.toContain(CANARY);
    // The node took the new write token: the plane stored it (audited without its value) and calls with it.
    expect(node.token).toBe(body.auth.api_write_token);
    node.requests = [];
    expect((await x.root.get(`/api/v1/nodes/${nodeId}/license`)).status).toBe(200);
    expect(node.requests[0]!.authorization).toBe(`Bearer ${body.auth.api_write_token}`);
    const audits = await x.root.get(`/api/v1/audit?action=node.update&object_id=${nodeId}&limit=10`);
    expect(
      audits.body.rows.some((r: { params: { changed: string[] } }) => r.params.changed.includes('api_token')),
    ).toBe(true);
    expect(audits.text).not.toContain(CANARY);
  });

  it('an auth block without api_write_token is refused before the node is asked: the node would shut the plane out', async () => {
    node.requests = [];
    const r = await x.root.patch(`/api/v1/nodes/${nodeId}/config/globals`, {
      auth: { admin_password: `pw-${CANARY}` },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'node_write_token_required' });
    expect(node.requests).toHaveLength(0);
  });

  it('a change the node finds nothing in is not audited', async () => {
    const before = await lastAudit(x.root, 'node.update', nodeId);
    node.globalsReply = { status: 200, body: { epoch: 42, hash: 'h42', changed: false } };
    const r = await x.root.patch(`/api/v1/nodes/${nodeId}/config/globals`, { cluster_id: 'c1' });
    node.globalsReply = null;
    expect(r.status).toBe(200);
    expect((await lastAudit(x.root, 'node.update', nodeId)).id).toBe(before.id);
  });

  it('the body is checked before the node is asked: unknown field, empty body, bad level, line breaks', async () => {
    node.requests = [];
    const cases: Array<[unknown, string]> = [
      [{ nope: 1 }, 'unknown_field'],
      [{}, 'bad_request'],
      [{ log_level: 'loud' }, 'bad_request'],
      [{ cluster_id: 'a\nb' }, 'bad_request'],
      [{ auth: { api_write_token: 'x', extra: 1 } }, 'unknown_field'],
      [{ trusted_proxies: [] }, 'bad_request'],
    ];
    for (const [body, code] of cases) {
      const r = await x.root.patch(`/api/v1/nodes/${nodeId}/config/globals`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error, JSON.stringify(body)).toBe(code);
    }
    expect(node.asked('/api/v1/config/globals')).toHaveLength(0);
  });

  it('a node refusal (400 invalid_config) is 400 node_rejected with its problems, secrets of the request and the stored token scrubbed', async () => {
    const secret = `sess-${CANARY}-secret`;
    node.globalsReply = {
      status: 400,
      body: {
        error: 'invalid_config',
        problems: [`session_secret ${secret} is too short`, `token ${node.token} is bad`],
      },
    };
    const r = await x.root.patch(`/api/v1/nodes/${nodeId}/config/globals`, {
      auth: { session_secret: secret, api_write_token: node.token },
    });
    node.globalsReply = null;
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: 'node_rejected',
      node_status: 400,
      node_error: 'invalid_config',
      problems: ['session_secret [redacted] is too short', 'token [redacted] is bad'],
    });
    expect(r.text).not.toContain(CANARY);
  });

  it('GET logging reads log_level from the config text (info without one); PATCH writes it through config/globals, audited', async () => {
    node.configText = 'http 127.0.0.1:1;\n# log_level trace;\nstream a { input "testsrc://x"; }\n';
    expect((await x.root.get(`/api/v1/nodes/${nodeId}/logging`)).body).toEqual({ level: 'info' });
    node.requests = [];
    const r = await x.root.patch(`/api/v1/nodes/${nodeId}/logging`, { level: 'debug' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ level: 'debug' });
    expect(node.asked('/api/v1/config/globals').map((q) => q.body)).toEqual([{ log_level: 'debug' }]);
    expect((await x.root.get(`/api/v1/nodes/${nodeId}/logging`)).body).toEqual({ level: 'debug' });
    const a = await lastAudit(x.root, 'node.update', nodeId);
    expect(a.params).toEqual({ changed: ['log_level'], log_level: 'debug', epoch: node.epoch });
    for (const bad of [{ level: 'loud' }, {}, { level: 'info', x: 1 }]) {
      const b = await x.root.patch(`/api/v1/nodes/${nodeId}/logging`, bad);
      expect(b.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await x.root.patch(`/api/v1/nodes/${nodeId}/logging`, { level: 'loud' })).body).toEqual({
      error: 'bad_level',
    });
  });
});

describe('configuration history and rollback', () => {
  it("lists the versions; a rollback answers the node's reply and is audited; an unknown epoch is 400 node_rejected; a bad body 400 bad_epoch", async () => {
    const h = await x.root.get(`/api/v1/nodes/${nodeId}/config/history`);
    expect(h.status, h.text).toBe(200);
    expect(h.body.rows).toHaveLength(node.epoch);
    expect(h.body.rows[0]).toEqual({ epoch: 1, hash: 'h1', ts_ms: 1_700_000_000_000, actor: 'boot', via: 'boot' });
    const before = node.epoch;
    const r = await x.root.post(`/api/v1/nodes/${nodeId}/config/rollback`, { epoch: 1 });
    expect([r.status, r.body]).toEqual([
      200,
      { epoch: before + 1, hash: `h${before + 1}`, changed: true, rolled_from: before },
    ]);
    const a = await lastAudit(x.root, 'node.update', nodeId);
    expect(a.params).toEqual({ changed: ['rollback'], rolled_back_to: 1, rolled_from: before, epoch: before + 1 });
    const unknown = await x.root.post(`/api/v1/nodes/${nodeId}/config/rollback`, { epoch: 999 });
    expect([unknown.status, unknown.body]).toEqual([
      400,
      { error: 'node_rejected', node_status: 404, node_error: 'epoch_not_found' },
    ]);
    expect((await x.root.post(`/api/v1/nodes/${nodeId}/config/rollback`, { epoch: 0 })).body).toEqual({
      error: 'bad_epoch',
    });
    expect((await x.a.admin.get(`/api/v1/nodes/${nodeId}/config/history`)).status).toBe(403);
  });
});

describe('a node that does not answer, refuses the token or answers nonsense', () => {
  it('nothing listening: 502 node_unreachable on every route', async () => {
    const id = await addNode(`http://127.0.0.1:${await freePort()}`);
    for (const r of ROUTES)
      expect((await x.root.get(`/api/v1/nodes/${id}/${r}`)).body, r).toEqual({ error: 'node_unreachable' });
    expect((await x.root.patch(`/api/v1/nodes/${id}/logging`, { level: 'info' })).body).toEqual({
      error: 'node_unreachable',
    });
    expect((await x.root.patch(`/api/v1/nodes/${id}/config/globals`, { log_level: 'info' })).status).toBe(502);
  });

  it('token refused (401, 403): 502 node_auth_failed; 500 or not JSON: 502 node_bad_reply', async () => {
    const wrong = await addNode(node.url, `wrong-${CANARY}-token-000`);
    expect(node.token).not.toBe(`wrong-${CANARY}-token-000`);
    for (const r of ROUTES)
      expect((await x.root.get(`/api/v1/nodes/${wrong}/${r}`)).body, r).toEqual({ error: 'node_auth_failed' });
    try {
      node.mode = 'forbid';
      expect((await x.root.get(`/api/v1/nodes/${nodeId}/config`)).body).toEqual({ error: 'node_auth_failed' });
      node.mode = 'error';
      const e = await x.root.get(`/api/v1/nodes/${nodeId}/logs`);
      expect(e.status).toBe(502);
      expect(e.body).toEqual({ error: 'node_bad_reply', node_status: 500 });
      node.mode = 'garbage';
      expect((await x.root.get(`/api/v1/nodes/${nodeId}/sessions`)).body).toEqual({
        error: 'node_bad_reply',
        node_status: 200,
      });
    } finally {
      node.mode = 'up';
    }
  });

  it("a node without the route (404) or with a reply of another shape is 502 node_bad_reply, not the caller's 404", async () => {
    const saved = node.license;
    try {
      node.license = null;
      const r = await x.root.get(`/api/v1/nodes/${nodeId}/license`);
      expect(r.status).toBe(502);
      expect(r.body).toEqual({ error: 'node_bad_reply', node_status: 404 });
      node.license = { nope: true };
      expect((await x.root.get(`/api/v1/nodes/${nodeId}/license`)).body).toEqual({
        error: 'node_bad_reply',
        node_status: 200,
      });
    } finally {
      node.license = saved;
    }
  });

  it('a node that hangs: 502 node_unreachable after the 5 s time-out', async () => {
    node.mode = 'hang';
    try {
      const started = Date.now();
      const r = await x.root.get(`/api/v1/nodes/${nodeId}/license`);
      expect(r.body).toEqual({ error: 'node_unreachable' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
    } finally {
      node.mode = 'up';
    }
  }, 15_000);

  it('a stored URL that makes no request URL: 500 url_build_failed', async () => {
    const id = await addNode(node.url);
    await t.db.database.db.updateTable('nodes').set({ url: 'ftp://bad host' }).where('id', '=', id).execute();
    expect((await x.root.get(`/api/v1/nodes/${id}/sessions`)).body).toEqual({ error: 'url_build_failed' });
  });

  it('the write token is in no reply, log line or audit record', async () => {
    const audit = await x.root.get('/api/v1/audit?limit=500');
    expect(audit.text).not.toContain(TOKEN);
    expect(t.logs.text).not.toContain(TOKEN);
    expect(t.logs.text).not.toContain(CANARY);
  });
});
