import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { SignJWT } from 'jose';
import { call, startNode, type RunningNode } from '../helpers/node-process.js';

const PASSWORD = 'grant-node-password';
const READ = 'read-token-0123456789';
const WRITE = 'write-token-0123456789';
const VIEWER_SECRET = 'viewer-secret-0123456789';
const CONFIG = `# grants and configuration
auth {
    admin_password ${PASSWORD};   # kept by hand
    api_read_token ${READ};
    api_write_token ${WRITE};
}
auth_backend { hs256 ${VIEWER_SECRET}; }

stream cam1 {
    input rtsp://user:camera-pass@127.0.0.1:9/main;
}
`;

let node: RunningNode;
let session: string;
let sessionExpires: number;
beforeAll(async () => {
  node = await startNode(CONFIG);
  const r = await call(node.url, 'POST', '/api/v1/auth/login', { body: { password: PASSWORD } });
  session = r.json.token;
  sessionExpires = r.json.expires_at;
});
afterAll(async () => {
  await node?.stop();
});

const grant = (body: unknown, token: string | undefined = session) =>
  call(node.url, 'POST', '/api/v1/auth/media-grants', { token, body });
const ok = { stream: 'cam1', intent: 'live', protocols: ['hls', 'webrtc'] };

describe('POST /api/v1/auth/media-grants (real node)', () => {
  it('200: the media grant object, fixed 300 s', async () => {
    const r = await grant(ok);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual([
      'expires_at',
      'server_time',
      'session_expires_at',
      'token',
      'ttl_secs',
    ]);
    expect(r.json.ttl_secs).toBe(300);
    expect(r.json.expires_at - r.json.server_time).toBe(300);
    expect(Math.abs(r.json.server_time - Date.now() / 1000)).toBeLessThan(5);
    expect(r.json.session_expires_at).toBe(sessionExpires);
  });

  it.each([
    ['extra field', { ...ok, ttl_secs: 10 }],
    ['missing field', { stream: 'cam1', intent: 'live' }],
    ['unknown intent', { ...ok, intent: 'watch' }],
    ['live with whip', { ...ok, protocols: ['hls', 'whip'] }],
    ['publish not exactly whip', { stream: 'cam1', intent: 'publish', protocols: ['whip', 'hls'] }],
    ['dvr with webrtc', { stream: 'cam1', intent: 'dvr', protocols: ['webrtc'] }],
    ['vod outside vod/', { stream: 'cam1', intent: 'vod', protocols: ['hls'] }],
    ['api protocol', { ...ok, protocols: ['api'] }],
    ['no protocol', { ...ok, protocols: [] }],
    ['nine protocols', { ...ok, protocols: ['hls', 'llhls', 'dash', 'mse', 'webrtc', 'whep', 'rtsp', 'rtmp', 'srt'] }],
    ['duplicate protocols', { ...ok, protocols: ['hls', 'hls'] }],
    ['not JSON', 'stream=cam1'],
  ])('400 invalid_request: %s', async (_n, body) => {
    const r =
      typeof body === 'string'
        ? await call(node.url, 'POST', '/api/v1/auth/media-grants', { token: session, raw: body })
        : await grant(body);
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('invalid_request');
  });

  it.each([
    ['read', READ],
    ['write', WRITE],
  ])('403 for the %s token', async (_n, token) => {
    const r = await grant(ok, token);
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ error: 'forbidden', reason: 'api_token_is_not_a_media_credential' });
  });

  it('413: body over 4 KiB', async () => {
    const r = await grant({ ...ok, stream: 'a'.repeat(5000) });
    expect(r.status).toBe(413);
    expect(r.json.error).toBe('payload_too_large');
  });

  it('the grant opens the media path of its stream only, and never the API', async () => {
    const { json } = await grant({ stream: 'cam1', intent: 'live', protocols: ['hls'] });
    const media = await call(node.url, 'GET', `/cam1/index.m3u8?token=${json.token}`);
    // Authorized: the licence and the grant pass; serving is the media pipeline's.
    expect(media.status).toBe(503);
    expect(media.json.error).toBe('stream_not_ready');
    const other = await grant({ stream: 'cam2', intent: 'live', protocols: ['hls'] });
    expect((await call(node.url, 'GET', `/cam1/index.m3u8?token=${other.json.token}`)).status).toBe(403);
    const webrtcOnly = await grant({ stream: 'cam1', intent: 'live', protocols: ['webrtc'] });
    expect((await call(node.url, 'GET', `/cam1/index.m3u8?token=${webrtcOnly.json.token}`)).status).toBe(403);
    expect((await call(node.url, 'GET', '/api/v1/streams', { token: json.token })).status).toBe(401);
  });

  it('a viewer token of the auth_backend opens the media path and never the API', async () => {
    const viewer = await new SignJWT({ typ: 'viewer', stream: 'cam*', sub: 'u1' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(VIEWER_SECRET));
    expect((await call(node.url, 'GET', `/cam1/index.m3u8?token=${viewer}`)).status).toBe(503);
    expect((await call(node.url, 'GET', '/api/v1/streams', { token: viewer })).status).toBe(401);
    expect((await call(node.url, 'GET', '/cam1/index.m3u8')).json.reason).toBe('viewer_token_invalid');
  });
});

describe('POST /api/v1/auth/rotate-session-keys (real node)', () => {
  it('administrator: a new key, the window grows to three and stays there', async () => {
    const sizes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call(node.url, 'POST', '/api/v1/auth/rotate-session-keys', { token: session });
      expect(r.status).toBe(200);
      sizes.push(r.json.keys_in_window);
    }
    expect(sizes).toEqual([2, 3, 3]);
  });

  it('the read token cannot rotate', async () => {
    const r = await call(node.url, 'POST', '/api/v1/auth/rotate-session-keys', { token: READ });
    expect(r.status).toBe(403);
    expect(r.json.reason).toBe('read_token_cannot_write');
  });

  it('409 in a cluster (cluster_id set), hot', async () => {
    expect(
      (await call(node.url, 'PATCH', '/api/v1/config/globals', { token: WRITE, body: { cluster_id: 'eu-1' } })).status,
    ).toBe(200);
    const r = await call(node.url, 'POST', '/api/v1/auth/rotate-session-keys', { token: session });
    expect(r.status).toBe(409);
    expect(r.json.error).toBe('cluster_managed_keys');
    expect(
      (await call(node.url, 'PATCH', '/api/v1/config/globals', { token: WRITE, body: { cluster_id: null } })).status,
    ).toBe(200);
    expect((await call(node.url, 'POST', '/api/v1/auth/rotate-session-keys', { token: session })).status).toBe(200);
  });
});

describe('configuration endpoints (real node)', () => {
  it('GET /api/v1/config: the text in full with version and build', async () => {
    const r = await call(node.url, 'GET', '/api/v1/config', { token: WRITE });
    expect(r.status).toBe(200);
    expect(r.json.text).toBe(await readFile(node.configPath, 'utf8'));
    expect(r.json.text).toContain('camera-pass');
    expect(typeof r.json.version).toBe('string');
    expect(r.json.build).toMatchObject({
      version: r.json.version,
      build_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect(r.headers.get('cache-control')).toBe('no-store');
    const fwd = await call(node.url, 'GET', '/api/v1/fleet/self/config', { token: session });
    expect(fwd.json.text).toBe(r.json.text);
  });

  it('GET /api/v1/streams hides camera passwords from the read token', async () => {
    const r = await call(node.url, 'GET', '/api/v1/streams', { token: READ });
    expect(r.json.rows[0]).toMatchObject({ name: 'cam1', input: 'rtsp://user:***@127.0.0.1:9/main' });
    expect(r.text).not.toContain('camera-pass');
  });

  it('PATCH globals keeps comments and order; history is append-only; rollback applies earlier bytes as a new epoch', async () => {
    const before = await call(node.url, 'GET', '/api/v1/config/history', { token: WRITE });
    const last = before.json[before.json.length - 1].epoch;
    const original = await readFile(node.configPath, 'utf8');

    const p = await call(node.url, 'PATCH', '/api/v1/config/globals', {
      token: session,
      body: { log_level: 'warn', trusted_proxies: ['10.0.0.0/8'] },
    });
    expect(p.status).toBe(200);
    expect(p.json).toMatchObject({ epoch: last + 1, changed: true });
    const edited = await readFile(node.configPath, 'utf8');
    expect(edited.startsWith(original)).toBe(true);
    expect(edited.slice(original.length)).toBe('log_level warn;\ntrusted_proxies 10.0.0.0/8;\n');

    const same = await call(node.url, 'PATCH', '/api/v1/config/globals', {
      token: session,
      body: { log_level: 'warn' },
    });
    expect(same.json).toMatchObject({ epoch: last + 1, changed: false });

    const rb = await call(node.url, 'POST', '/api/v1/config/rollback', { token: WRITE, body: { epoch: last } });
    expect(rb.status).toBe(200);
    expect(rb.json).toMatchObject({ epoch: last + 2, changed: true, rolled_from: last + 1 });
    expect(await readFile(node.configPath, 'utf8')).toBe(original);

    const h = (await call(node.url, 'GET', '/api/v1/config/history', { token: session })).json as Array<{
      epoch: number;
      hash: string;
      via: string;
      actor: string;
      ts_ms: number;
    }>;
    expect(h.map((e) => e.epoch)).toEqual(Array.from({ length: h.length }, (_, i) => i + 1));
    expect(h[0]).toMatchObject({ epoch: 1, via: 'boot', actor: 'system' });
    expect(h.slice(1).every((e) => e.via === 'api')).toBe(true);
    expect(h[h.length - 1].hash).toBe(h[h.length - 3].hash);
    expect(h[h.length - 2].actor).toBe('admin');
    expect(h[h.length - 1].actor).toBe('api_write_token');
    expect(h.every((e, i) => i === 0 || e.ts_ms >= h[i - 1].ts_ms)).toBe(true);

    const again = await call(node.url, 'POST', '/api/v1/config/rollback', { token: WRITE, body: { epoch: last + 2 } });
    expect(again.json).toMatchObject({ epoch: last + 2, changed: false, rolled_from: last + 2 });
  });

  it('rollback: unknown epoch 404, bad body 400', async () => {
    const r = await call(node.url, 'POST', '/api/v1/config/rollback', { token: WRITE, body: { epoch: 9999 } });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ error: 'epoch_not_found', epoch: 9999 });
    expect(
      (await call(node.url, 'POST', '/api/v1/config/rollback', { token: WRITE, body: { epoch: '1' } })).status,
    ).toBe(400);
    expect(
      (await call(node.url, 'POST', '/api/v1/config/rollback', { token: WRITE, body: { epoch: 1, x: 1 } })).status,
    ).toBe(400);
  });

  it('an invalid change is refused with every problem and no token in the reply; nothing is written', async () => {
    const before = await readFile(node.configPath, 'utf8');
    const r = await call(node.url, 'PATCH', '/api/v1/config/globals', {
      token: session,
      body: { auth: { admin_password: PASSWORD, api_read_token: 'short-secret', api_write_token: '' } },
    });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('invalid_config');
    expect(r.json.problems).toEqual([
      'line 6: api_read_token must be at least 16 characters',
      'line 7: api_write_token must not be empty (omit it to leave the tier unconfigured)',
    ]);
    expect(r.text).not.toContain('short-secret');
    expect(await readFile(node.configPath, 'utf8')).toBe(before);
  });

  it('PATCH of the auth block rewrites the whole block and applies hot: a token not sent is gone', async () => {
    const r = await call(node.url, 'PATCH', '/api/v1/config/globals', {
      token: session,
      body: { auth: { admin_password: PASSWORD, api_read_token: `${READ}-new` } },
    });
    expect(r.status).toBe(200);
    const text = await readFile(node.configPath, 'utf8');
    expect(text).toContain(`auth {\n    admin_password ${PASSWORD};\n    api_read_token ${READ}-new;\n}\nauth_backend`);
    expect((await call(node.url, 'GET', '/api/v1/streams', { token: READ })).status).toBe(401);
    expect((await call(node.url, 'GET', '/api/v1/streams', { token: WRITE })).status).toBe(401);
    expect((await call(node.url, 'GET', '/api/v1/streams', { token: `${READ}-new` })).status).toBe(200);
    expect((await call(node.url, 'GET', '/api/v1/streams', { token: session })).status).toBe(200);
  });

  it('PUT and DELETE of a stream are configuration epochs', async () => {
    const put = await call(node.url, 'PUT', '/api/v1/streams/cam2', {
      token: session,
      body: { input: 'testsrc://two', on_demand: true },
    });
    expect(put.status).toBe(201);
    expect(put.json.stream).toMatchObject({ name: 'cam2', on_demand: true, state: 'parked' });
    expect(await readFile(node.configPath, 'utf8')).toContain(
      'stream cam2 {\n    input testsrc://two;\n    on_demand;\n}\n',
    );
    expect(
      (
        await call(node.url, 'PUT', '/api/v1/streams/cam2', {
          token: session,
          body: { input: 'testsrc://two', on_demand: true },
        })
      ).status,
    ).toBe(200);
    const del = await call(node.url, 'DELETE', '/api/v1/streams/cam2', { token: session });
    expect(del.status).toBe(200);
    expect((await call(node.url, 'DELETE', '/api/v1/streams/cam2', { token: session })).status).toBe(404);
    expect(
      (await call(node.url, 'PUT', '/api/v1/streams/cam3', { token: session, body: { input: 'ftp://x' } })).json.error,
    ).toBe('invalid_config');
  });
});

describe('GET /api/v1/system (real node)', () => {
  it('has every field the plane sweeper reads', async () => {
    const r = await call(node.url, 'GET', '/api/v1/system', { token: session });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual([
      'cpus',
      'host_cpu_busy_pct',
      'license',
      'mem_available_mb',
      'mem_total_mb',
      'proc_cpu_cores',
      'rss_mb',
      'storages',
      'stream_counts',
      'version',
    ]);
    expect(r.json.stream_counts).toEqual({ total: 1, live: 0, degraded: 0, failing: 1 });
    expect(r.json.license).toBeNull();
    expect(r.json.rss_mb).toBeGreaterThan(0);
  });
});
