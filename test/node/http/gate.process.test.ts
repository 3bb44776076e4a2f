import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startNode, type RunningNode } from '../helpers/node-process.js';

const PASSWORD = 'correct horse battery';
const READ = 'read-token-0123456789';
const WRITE = 'write-token-0123456789';

const CONFIG = `trusted_proxies 127.0.0.1;
log_level debug;
auth {
    admin_password "${PASSWORD}";
    api_read_token ${READ};
    api_write_token ${WRITE};
}
auth_backend { hs256 viewer-secret-0123456789; }
stream cam1 { input testsrc://cam1; on_demand; }
`;

let node: RunningNode;
let session: string;

beforeAll(async () => {
  node = await startNode(CONFIG);
  const r = await call(node.url, 'POST', '/api/v1/auth/login', { body: { password: PASSWORD } });
  session = r.json.token;
});
afterAll(async () => {
  await node?.stop();
});

const get = (path: string, token?: string, headers?: Record<string, string>) =>
  call(node.url, 'GET', path, { token, headers });

describe('POST /api/v1/auth/login (real node)', () => {
  it('200: correct password gives a 12 h bearer session token', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await call(node.url, 'POST', '/api/v1/auth/login', { body: { password: PASSWORD } });
    expect(r.status).toBe(200);
    expect(typeof r.json.token).toBe('string');
    expect(r.json.expires_at - before).toBeGreaterThanOrEqual(12 * 3600);
    expect(r.json.expires_at - before).toBeLessThanOrEqual(12 * 3600 + 2);
    expect((await get('/api/v1/streams', r.json.token)).status).toBe(200);
  });

  it('400: body without password, and a body that is not JSON', async () => {
    const [missing, notJson, empty] = await Promise.all([
      call(node.url, 'POST', '/api/v1/auth/login', { body: { pass: PASSWORD } }),
      call(node.url, 'POST', '/api/v1/auth/login', {
        raw: 'password=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      call(node.url, 'POST', '/api/v1/auth/login'),
    ]);
    for (const r of [missing, notJson, empty]) {
      expect(r.status).toBe(400);
      expect(r.json.error).toBe('invalid_request');
    }
    expect(notJson.json.message).toBe('body is not JSON');
  });

  it('401: wrong password, after the unconditional 600 ms delay, no WWW-Authenticate', async () => {
    const t0 = performance.now();
    const r = await call(node.url, 'POST', '/api/v1/auth/login', {
      body: { password: 'wrong' },
      headers: { 'x-forwarded-for': '198.51.100.1' },
    });
    const took = performance.now() - t0;
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: 'unauthorized' });
    expect(r.headers.get('www-authenticate')).toBeNull();
    expect(took).toBeGreaterThanOrEqual(600);
  });

  it('413: body larger than 4 KiB', async () => {
    const r = await call(node.url, 'POST', '/api/v1/auth/login', { body: { password: 'x'.repeat(4100) } });
    expect(r.status).toBe(413);
    expect(r.json.error).toBe('payload_too_large');
  });

  it('429: the throttling window of an address opens after 5 failures; other addresses are not affected', async () => {
    const from = { 'x-forwarded-for': '203.0.113.50' };
    const fails = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(node.url, 'POST', '/api/v1/auth/login', { body: { password: 'guess' }, headers: from }),
      ),
    );
    expect(fails.map((f) => f.status)).toEqual([401, 401, 401, 401, 401]);
    const t0 = performance.now();
    const blocked = await call(node.url, 'POST', '/api/v1/auth/login', { body: { password: PASSWORD }, headers: from });
    expect(blocked.status).toBe(429);
    expect(blocked.json.error).toBe('too_many_requests');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(performance.now() - t0).toBeLessThan(600);
    const other = await call(node.url, 'POST', '/api/v1/auth/login', {
      body: { password: PASSWORD },
      headers: { 'x-forwarded-for': '203.0.113.51' },
    });
    expect(other.status).toBe(200);
  });
});

describe('static API tokens: the level table (real node)', () => {
  it.each([
    // credential, method, path, status, reason
    ['read', 'GET', '/api/v1/streams', 200, undefined],
    ['read', 'HEAD', '/api/v1/streams', 200, undefined],
    ['read', 'GET', '/metrics', 200, undefined],
    ['read', 'GET', '/api/v1/config', 403, 'read_token_cannot_read_config'],
    ['read', 'GET', '/api/v1/fleet/self/config', 403, 'read_token_cannot_read_config'],
    ['read', 'PATCH', '/api/v1/config/globals', 403, 'read_token_cannot_write'],
    ['read', 'POST', '/api/v1/config/rollback', 403, 'read_token_cannot_write'],
    ['read', 'DELETE', '/api/v1/streams/cam1', 403, 'read_token_cannot_write'],
    ['read', 'POST', '/api/v1/auth/media-grants', 403, 'api_token_is_not_a_media_credential'],
    ['write', 'GET', '/api/v1/streams', 200, undefined],
    ['write', 'GET', '/metrics', 200, undefined],
    ['write', 'GET', '/api/v1/config', 200, undefined],
    ['write', 'GET', '/api/v1/fleet/self/config', 200, undefined],
    ['write', 'POST', '/api/v1/auth/media-grants', 403, 'api_token_is_not_a_media_credential'],
    ['session', 'GET', '/api/v1/streams', 200, undefined],
    ['session', 'GET', '/metrics', 200, undefined],
    ['session', 'GET', '/api/v1/config', 200, undefined],
    ['none', 'GET', '/api/v1/streams', 401, undefined],
    ['none', 'GET', '/api/v1/config', 401, undefined],
    ['none', 'GET', '/api/v1/nonexistent', 401, undefined],
    ['none', 'POST', '/api/v1/auth/media-grants', 401, undefined],
    ['none', 'GET', '/metrics', 401, undefined],
    ['bogus', 'GET', '/api/v1/streams', 401, undefined],
    ['bogus', 'GET', '/metrics', 401, undefined],
  ] as const)('%s %s %s -> %i %s', async (who, method, path, status, reason) => {
    const token = { read: READ, write: WRITE, session, none: undefined, bogus: 'not-a-token-0123456789' }[who];
    const r = await call(node.url, method, path, {
      token,
      body: method === 'GET' || method === 'HEAD' || method === 'DELETE' ? undefined : {},
    });
    expect(r.status).toBe(status);
    if (status === 403) expect(r.json).toEqual({ error: 'forbidden', reason });
    if (status === 401) {
      expect(r.json).toEqual({ error: 'unauthorized' });
      expect(r.headers.get('www-authenticate')).toBeNull();
    }
  });

  it('the read-config rule holds on the matched route, whatever the spelling of the path', async () => {
    const r = await get('/api/v1/%63onfig', READ);
    expect([403, 404]).toContain(r.status);
    expect(r.text).not.toContain(PASSWORD);
  });

  it('a static token in a `token` query parameter is never accepted (401), on any route', async () => {
    for (const path of ['/api/v1/streams', '/metrics', '/api/v1/system', '/api/v1/events']) {
      for (const t of [READ, WRITE]) {
        const r = await get(`${path}?token=${t}`);
        expect(r.status, `${path} ${t}`).toBe(401);
      }
    }
  });

  it('the session token in the query is accepted only on GET /api/v1/events', async () => {
    expect((await get(`/api/v1/streams?token=${session}`)).status).toBe(401);
    expect((await get(`/metrics?token=${session}`)).status).toBe(401);
    const ac = new AbortController();
    const r = await fetch(`${node.url}/api/v1/events?token=${session}`, { signal: ac.signal });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = r.body!.getReader();
    const { value } = await reader.read();
    const first = new TextDecoder().decode(value);
    expect(first).toMatch(/^event: snapshot\ndata: /);
    expect(JSON.parse(first.split('data: ')[1]).streams.map((s: { name: string }) => s.name)).toEqual(['cam1']);
    ac.abort();
  });

  it('the events feed reports a stream added through the API', async () => {
    const ac = new AbortController();
    const r = await fetch(`${node.url}/api/v1/events`, {
      headers: { authorization: `Bearer ${READ}` },
      signal: ac.signal,
    });
    const reader = r.body!.getReader();
    let text = new TextDecoder().decode((await reader.read()).value);
    const put = await call(node.url, 'PUT', '/api/v1/streams/cam9', {
      token: WRITE,
      body: { input: 'testsrc://cam9', on_demand: true },
    });
    expect(put.status).toBe(201);
    while (!text.includes('event: stream')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toMatch(/event: stream\ndata: \{"name":"cam9","state":"parked"/);
    ac.abort();
    expect((await call(node.url, 'DELETE', '/api/v1/streams/cam9', { token: WRITE })).status).toBe(200);
  });

  it('tokens and passwords never appear in the log', async () => {
    await get(`/api/v1/streams?token=${session}&x=1`);
    await node.waitForLog((l) => l.msg === 'request' && String(l.url).endsWith('&x=1'));
    expect(
      node.logs.filter((l) => l.msg === 'request' && String(l.url).includes('token=')).map((l) => l.url),
    ).toContain('/api/v1/streams?token=[redacted]&x=1');
    const all = JSON.stringify(node.logs) + node.stderr.join('');
    for (const secret of [READ, WRITE, PASSWORD, session]) expect(all).not.toContain(secret);
  });
});

describe('GET /metrics and GET /api/v1/metrics (real node)', () => {
  it('Prometheus text with a read token', async () => {
    const r = await get('/metrics', READ);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(r.text).toMatch(/^# HELP argus_node_build_info /);
    expect(r.text).toMatch(/\nargus_node_streams 1\n/);
    expect(r.text).toMatch(/\nargus_node_gate_decisions_total\{result="401"\} \d+\n/);
  });

  it('JSON dump of internal state with its own size limit', async () => {
    const r = await get('/api/v1/metrics', READ);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.json).toMatchObject({
      truncated: false,
      limit_bytes: 262144,
      gate: { enabled: true, password: true, static_tokens: true },
    });
    expect(r.text).not.toContain(READ);
  });
});

describe('public surfaces (real node)', () => {
  it('/admin is a real page with a login form, a Security tab and a first-run wizard', async () => {
    const r = await get('/admin');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.text).toContain('<form id="login-form">');
    expect(r.text).toContain('data-tab="security"');
    expect(r.text).toContain('<form id="wizard-form">');
    expect(r.text).toContain('Saving rewrites the whole <code>auth { }</code> block');
    expect(r.headers.get('x-frame-options')).toBe('DENY');
  });

  it('its files load without credentials', async () => {
    const js = await get('/admin/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.text).toContain("'/api/v1/auth/login'");
    expect(js.text).toContain("'PATCH', '/api/v1/config/globals', { auth:");
    expect((await get('/admin/app.css')).status).toBe(200);
  });

  it('/{stream}/embed.html is public', async () => {
    const r = await get('/cam1/embed.html');
    expect(r.status).toBe(200);
    expect(r.text).toContain('<video');
    expect(r.text).toContain('index.m3u8');
  });

  it('media is guarded by auth_backend, not by the gate: static tokens and the password open nothing', async () => {
    for (const t of [READ, WRITE, session]) {
      const r = await get(`/cam1/index.m3u8?token=${t}`);
      expect(r.status).toBe(403);
      expect(r.json.reason).toBe('viewer_token_invalid');
    }
  });
});
