import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlane, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';
import { normaliseNodeUrl } from '../../../src/plane/nodes/nodes.service.js';
import { checkSourceUrl } from '../../../src/plane/cameras/cameras.service.js';
import { parsePlaneConfig } from '../../../src/plane/config/config.js';

// Finding 8 of issue 10 (the lower ones), one describe each.
let t: TestPlane;
let root: Client;
let x: Tenants;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-lower-'));
  t = await startPlane({ config: { evidence: { backend: 'local', dir } } });
  root = await login(t.plane.app);
  x = await tenants(t);
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a failed login audits the attempted name only when it is a user', () => {
  it('an unknown login (maybe a password) is stored as a fixed placeholder', async () => {
    const secretish = `Hunter2-${unique('pw')}`;
    expect(
      (await new Client(t.plane.app).post('/api/v1/auth/login', { login: secretish, password: 'whatever-1' })).status,
    ).toBe(401);
    const rows = await t.db.database.db
      .selectFrom('audit')
      .select(['actor_name', 'object_name'])
      .where('action', '=', 'auth.login_failed')
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    expect(rows[0]).toEqual({ actor_name: '(unknown login)', object_name: '(unknown login)' });
    const all = await t.db.database.db.selectFrom('audit').select('doc').execute();
    expect(all.some((r) => String(r.doc).includes(secretish))).toBe(false);
  });

  it('a wrong password for an existing user keeps the login', async () => {
    expect(
      (await new Client(t.plane.app).post('/api/v1/auth/login', { login: 'root', password: 'wrong-one-1' })).status,
    ).toBe(401);
    const rows = await t.db.database.db
      .selectFrom('audit')
      .select(['actor_name', 'object_name'])
      .where('action', '=', 'auth.login_failed')
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    expect(rows[0]).toEqual({ actor_name: 'root', object_name: 'root' });
  });
});

describe('a URI past the router limits', () => {
  it('414 with the envelope and the security headers', async () => {
    const r = await root.get(`/api/v1/users/${'a'.repeat(600)}`);
    expect(r.status).toBe(414);
    expect(r.body).toEqual({ error: 'uri_too_long' });
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('a malformed URL: 400 with the envelope and the security headers', async () => {
    const r = await root.get('/api/v1/users/%E0%A4%A');
    expect(r.status).toBe(400);
    expect(typeof r.body?.error).toBe('string');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('attachments are served so a browser cannot run them', () => {
  let mod: Client;
  beforeAll(async () => {
    const r = await x.a.admin.post('/api/v1/module-tokens', { name: unique('mod'), rate_limit: 100_000 });
    mod = new Client(t.plane.app, r.body.secret);
  });
  const upload = async (type: string, text: string) => {
    const r = await t.plane.app.inject({
      method: 'POST',
      url: '/api/v1/attachments',
      payload: Buffer.from(text),
      headers: { authorization: `Bearer ${mod.token}`, 'content-type': type },
    });
    expect(r.statusCode, r.body).toBe(201);
    const ref = r.json().ref as string;
    // Bound to an event so that an administrator may read it.
    const e = await mod.post('/api/v1/events', {
      events: [{ detector: 'x.y', occurred_at: new Date().toISOString(), attachments: [ref] }],
    });
    expect(e.status, e.text).toBe(200);
    return ref;
  };

  it('HTML and SVG: Content-Disposition attachment and CSP sandbox', async () => {
    for (const [type, text] of [
      ['text/html', '<script>alert(1)</script>'],
      ['image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'],
    ] as const) {
      const ref = await upload(type, text);
      const r = await x.a.admin.get(`/api/v1/attachments/${ref}`);
      expect(r.status, r.text).toBe(200);
      expect(String(r.headers['content-disposition'])).toMatch(/^attachment/);
      expect(String(r.headers['content-security-policy'])).toMatch(/sandbox/);
    }
  });

  it('images and video stay inline, still sandboxed', async () => {
    const ref = await upload('image/jpeg', 'not really a jpeg');
    const r = await x.a.admin.get(`/api/v1/attachments/${ref}`);
    expect(r.status).toBe(200);
    expect(String(r.headers['content-disposition'] ?? 'inline')).toMatch(/^inline/);
    expect(String(r.headers['content-security-policy'])).toMatch(/sandbox/);
  });
});

// 169.254.169.254 in the notations a URL parser accepts, and the metadata names.
const METADATA_URLS = [
  'http://169.254.169.254/latest/meta-data/',
  'http://2852039166/',
  'http://0xa9fea9fe/',
  'http://0251.0376.0251.0376/',
  'http://169.254.43518/',
  'http://0xA9.0xFE.0xA9.0xFE/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://metadata.google.internal/',
  'http://METADATA.google.internal./',
  'http://[fe80::1]/',
  'http://[fd00:ec2::254]/',
  'http://100.100.100.200/',
  'http://0.0.0.0:8081/',
  'http://169.254.1.1:8081/',
];

describe('node URLs and camera sources: no link-local or metadata targets', () => {
  it('refuses a node URL naming them, in any notation (400 bad_url)', async () => {
    for (const url of METADATA_URLS) {
      const r = await root.post('/api/v1/nodes', { name: unique('meta'), url, api_token: 'tok-tok-tok-tok' });
      expect(r.status, url).toBe(400);
      expect(r.body, url).toEqual({ error: 'bad_url' });
    }
  });

  it('keeps private and loopback node URLs', async () => {
    for (const url of [
      'http://10.0.0.5:8081/',
      'http://192.168.1.20:8081',
      'http://127.0.0.1:8081',
      'https://node.example',
    ]) {
      expect(
        (await root.post('/api/v1/nodes', { name: unique('ok'), url, api_token: 'tok-tok-tok-tok' })).status,
        url,
      ).toBe(201);
    }
  });

  it('refuses camera sources with file: or a metadata host (400 bad_source_url)', async () => {
    const nodeId = '00000000-0000-4000-8000-000000000001';
    for (const s of [
      'file:///etc/passwd',
      'file:///srv/demo.mp4',
      'rtsp://169.254.169.254/x',
      'rtsp://2852039166/x',
      'http://metadata.google.internal/computeMetadata/v1/',
      'rtmp://[fe80::1]/live',
    ]) {
      const r = await x.a.admin.post('/api/v1/cameras', { name: 'c', node_id: nodeId, main_source: s });
      expect(r.status, s).toBe(400);
      expect(r.body, s).toEqual({ error: 'bad_source_url' });
    }
  });

  it('[network] allow_private_targets = true lets them through', () => {
    const parse = (text: string) => parsePlaneConfig({ text, configFile: null, env: {}, dataDir: '/tmp/argus-test' });
    expect(parse('').allowPrivateTargets).toBe(false);
    expect(parse('[network]\nallow_private_targets = true').allowPrivateTargets).toBe(true);
    expect(() => parse('[network]\nallow_private_targets = "yes"')).toThrow();
    for (const url of METADATA_URLS) expect(() => normaliseNodeUrl(url, true), url).not.toThrow();
    expect(checkSourceUrl('rtsp://169.254.169.254/x', true)).toBe('rtsp://169.254.169.254/x');
    expect(() => checkSourceUrl('file:///etc/passwd', true)).toThrow();
  });
});
