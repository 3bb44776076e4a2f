import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { call, freePort, startNode, type RunningNode } from '../helpers/node-process.js';
import { MEDIA_ENV, TESTSRC, stopAndReap, uris, waitFor, waitState } from './media-helpers.js';

/**
 * Viewer authorization on real video: viewer tokens of the auth_backend (hs256 and jwks), session
 * tickets in the playlists, media grants within their binding, GET /api/v1/sessions, and the
 * rule that no management credential opens media.
 */
const SECRET = 'viewer-secret-0123456789';
const PASSWORD = 'viewer-node-password';
const WRITE = 'write-token-0123456789';
const READ = 'read-token-0123456789';
let node: RunningNode;
let session: string;

function viewer(
  claims: Record<string, unknown>,
  opts: { secret?: string; exp?: string | number } = {},
): Promise<string> {
  return new SignJWT({ typ: 'viewer', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(opts.exp ?? '5m')
    .sign(new TextEncoder().encode(opts.secret ?? SECRET));
}
const alice = () =>
  viewer({
    stream: 'cam1',
    sub: '0190c0de-0000-7000-8000-000000000001',
    subject_kind: 'user',
    subject_name: 'alice',
    camera_id: '0190c0de-0000-7000-8000-0000000000aa',
    protocols: ['hls'],
  });
const get = (path: string, headers: Record<string, string> = {}) => call(node.url, 'GET', path, { headers });

beforeAll(async () => {
  node = await startNode(
    `trusted_proxies 127.0.0.1;
auth {
    admin_password ${PASSWORD};
    api_read_token ${READ};
    api_write_token ${WRITE};
}
auth_backend { hs256 ${SECRET}; }
stream cam1 { input "${TESTSRC}"; }
stream cam2 { input rtsp://127.0.0.1:9/none; }
`,
    { env: MEDIA_ENV },
  );
  session = (await call(node.url, 'POST', '/api/v1/auth/login', { body: { password: PASSWORD } })).json.token;
  await waitState(node, 'cam1', 'live', 20_000, READ);
});
afterAll(async () => {
  expect(await stopAndReap(node)).toEqual([]);
});

describe('viewer tokens', () => {
  it('a valid token becomes a session ticket carried by the variant and segment URLs', async () => {
    const entry = await get(`/cam1/index.m3u8?token=${await alice()}`);
    expect(entry.status).toBe(200);
    const [variant] = uris(entry.text);
    expect(variant).toMatch(/^live\.m3u8\?t=[A-Za-z0-9_.-]+$/);
    const media = await get(`/cam1/${variant}`);
    expect(media.status).toBe(200);
    const segs = uris(media.text);
    expect(segs.length).toBeGreaterThan(0);
    const ticket = variant.slice('live.m3u8?t='.length);
    for (const s of segs) expect(s).toMatch(new RegExp(`^r\\d+-\\d+\\.ts\\?t=${ticket.replace(/\./g, '\\.')}$`));
    expect((await fetch(`${node.url}/cam1/${segs[0]}`)).status).toBe(200);
    // Without the ticket the same segment is refused.
    expect((await get(`/cam1/${segs[0].split('?')[0]}`)).status).toBe(403);
  });

  it.each([
    ['no token', async () => ''],
    ['expired', () => viewer({ stream: 'cam1', sub: 'u' }, { exp: Math.floor(Date.now() / 1000) - 60 })],
    ['forged (another secret)', () => viewer({ stream: 'cam1', sub: 'u' }, { secret: 'not-the-secret-0123456789' })],
    ['another stream', () => viewer({ stream: 'cam9', sub: 'u' })],
    ['a prefix that does not match', () => viewer({ stream: 'door*', sub: 'u' })],
    ['protocols without hls', () => viewer({ stream: 'cam1', sub: 'u', protocols: ['webrtc'] })],
    [
      'typ not viewer',
      () =>
        new SignJWT({ typ: 'admin', stream: 'cam1' })
          .setProtectedHeader({ alg: 'HS256' })
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(SECRET)),
    ],
    [
      'no exp',
      () =>
        new SignJWT({ typ: 'viewer', stream: 'cam1' })
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new TextEncoder().encode(SECRET)),
    ],
    ['garbage', async () => 'not.a.jwt'],
  ])('403 viewer_token_invalid: %s', async (_n, make) => {
    const t = await make();
    const r = await get(`/cam1/index.m3u8${t ? `?token=${t}` : ''}`);
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ error: 'forbidden', reason: 'viewer_token_invalid' });
  });

  it('a prefix claim and an absent protocols claim pass', async () => {
    expect((await get(`/cam1/index.m3u8?token=${await viewer({ stream: 'cam*', sub: 'u' })}`)).status).toBe(200);
  });

  it('a ticket of one stream does not open another', async () => {
    const entry = await get(`/cam1/index.m3u8?token=${await viewer({ stream: 'cam*', sub: 'u' })}`);
    const ticket = uris(entry.text)[0].split('?t=')[1];
    const r = await get(`/cam2/live.m3u8?t=${ticket}`);
    expect(r.status).toBe(403);
    expect((await get(`/cam1/live.m3u8?t=${ticket}x`)).status).toBe(403);
  });

  it('neither the admin session nor the static tokens open media, as token or ticket', async () => {
    for (const t of [READ, WRITE, session]) {
      expect((await get(`/cam1/index.m3u8?token=${t}`)).status).toBe(403);
      expect((await get(`/cam1/live.m3u8?t=${t}`)).status).toBe(403);
      expect((await call(node.url, 'GET', '/cam1/index.m3u8', { token: t })).status).toBe(403);
    }
  });

  it('a viewer token never opens the API', async () => {
    expect((await call(node.url, 'GET', '/api/v1/sessions', { token: await alice() })).status).toBe(401);
  });
});

describe('GET /api/v1/sessions', () => {
  it('lists the live viewer with its subject, address, agent and time connected', async () => {
    const entry = await get(`/cam1/index.m3u8?token=${await alice()}`, { 'user-agent': 'test-player/1.0' });
    await get(`/cam1/${uris(entry.text)[0]}`, { 'user-agent': 'test-player/1.0' });
    await new Promise((r) => setTimeout(r, 300));
    const r = await call(node.url, 'GET', '/api/v1/sessions', { token: READ });
    expect(r.status).toBe(200);
    const row = r.json.rows.find((x: { user_agent: string }) => x.user_agent === 'test-player/1.0');
    expect(row).toMatchObject({
      stream: 'cam1',
      protocol: 'hls',
      client_ip: '127.0.0.1',
      sub: '0190c0de-0000-7000-8000-000000000001',
      subject_kind: 'user',
      subject_name: 'alice',
      camera_id: '0190c0de-0000-7000-8000-0000000000aa',
    });
    expect(row.connected_ms).toBeGreaterThanOrEqual(250);
    expect((await call(node.url, 'GET', '/api/v1/sessions')).status).toBe(401);
  });

  it('a session ends when its player stops fetching', async () => {
    await get(`/cam1/index.m3u8?token=${await viewer({ stream: 'cam1', sub: 'leaver' })}`);
    expect(
      (await call(node.url, 'GET', '/api/v1/sessions', { token: READ })).json.rows.some(
        (x: { sub: string }) => x.sub === 'leaver',
      ),
    ).toBe(true);
    await waitFor(
      'idle session gone',
      async () =>
        !(await call(node.url, 'GET', '/api/v1/sessions', { token: READ })).json.rows.some(
          (x: { sub: string }) => x.sub === 'leaver',
        ),
      10_000,
    );
  });
});

describe('session key rotation', () => {
  it('tickets survive two rotations, die on the third; the token opens a new session at once', async () => {
    const token = await alice();
    const ticket = uris((await get(`/cam1/index.m3u8?token=${token}`)).text)[0].split('?t=')[1];
    for (let i = 0; i < 2; i++) {
      expect((await call(node.url, 'POST', '/api/v1/auth/rotate-session-keys', { token: WRITE })).status).toBe(200);
      expect((await get(`/cam1/live.m3u8?t=${ticket}`)).status).toBe(200);
    }
    await call(node.url, 'POST', '/api/v1/auth/rotate-session-keys', { token: WRITE });
    expect((await get(`/cam1/live.m3u8?t=${ticket}`)).status).toBe(403);
    const again = await get(`/cam1/index.m3u8?token=${token}`);
    expect(again.status).toBe(200);
    expect((await get(`/cam1/${uris(again.text)[0]}`)).status).toBe(200);
  });
});

describe('media grants', () => {
  const grant = async (body: Record<string, unknown>, xff = '192.0.2.50') =>
    (
      await call(node.url, 'POST', '/api/v1/auth/media-grants', {
        token: session,
        body,
        headers: { 'x-forwarded-for': xff },
      })
    ).json.token as string;

  it('a live grant opens the live playlist and its segments from its own address only', async () => {
    const g = await grant({ stream: 'cam1', intent: 'live', protocols: ['hls'] });
    const mine = { 'x-forwarded-for': '192.0.2.50' };
    const entry = await get(`/cam1/index.m3u8?token=${g}`, mine);
    expect(entry.status).toBe(200);
    const media = await get(`/cam1/${uris(entry.text)[0]}`, mine);
    expect(media.status).toBe(200);
    expect((await get(`/cam1/${uris(media.text)[0]}`, mine)).status).toBe(200);
    // The same grant, or its ticket, from another address.
    expect((await get(`/cam1/index.m3u8?token=${g}`, { 'x-forwarded-for': '192.0.2.51' })).status).toBe(403);
    expect((await get(`/cam1/${uris(entry.text)[0]}`, { 'x-forwarded-for': '192.0.2.51' })).status).toBe(403);
  });

  it('a grant opens only the paths of its intent and stream', async () => {
    const mine = { 'x-forwarded-for': '192.0.2.50' };
    const exp = await grant({ stream: 'cam1', intent: 'export', protocols: ['hls'] });
    expect((await get(`/cam1/index.m3u8?token=${exp}`, mine)).status).toBe(403);
    const preview = await grant({ stream: 'cam1', intent: 'preview', protocols: ['hls'] });
    expect((await get(`/cam1/index.m3u8?token=${preview}`, mine)).status).toBe(403);
    expect((await fetch(`${node.url}/cam1/preview.jpg?token=${preview}`, { headers: mine })).status).toBe(200);
    const cam2 = await grant({ stream: 'cam2', intent: 'live', protocols: ['hls'] });
    expect((await get(`/cam1/index.m3u8?token=${cam2}`, mine)).status).toBe(403);
    // Authorized for cam2, whose camera is unreachable: 503 with the state, not 403.
    const r = await get(`/cam2/index.m3u8?token=${cam2}`, mine);
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ error: 'stream_not_ready', state: 'failing' });
  });
});

describe('auth_backend jwks', () => {
  let jwksServer: Server | undefined;
  let jwksNode: RunningNode | undefined;
  afterAll(async () => {
    await stopAndReap(jwksNode);
    await new Promise((r) => (jwksServer ? jwksServer.close(() => r(null)) : r(null)));
  });

  it('verifies viewer tokens against the keys served at the jwks URL (loopback)', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const other = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    const port = await freePort();
    jwksServer = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => jwksServer!.listen(port, '127.0.0.1', () => r()));
    jwksNode = await startNode(
      `auth_backend { jwks http://127.0.0.1:${port}/jwks.json; }\nstream cam1 { input rtsp://127.0.0.1:9/none; }\n`,
      { env: MEDIA_ENV },
    );
    const sign = (key: Parameters<SignJWT['sign']>[0], claims: Record<string, unknown>) =>
      new SignJWT({ typ: 'viewer', sub: 'j', ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setExpirationTime('5m')
        .sign(key);
    // Authorized (503: the camera is unreachable), versus refused (403).
    const ok = await call(jwksNode.url, 'GET', `/cam1/index.m3u8?token=${await sign(privateKey, { stream: 'cam1' })}`);
    expect(ok.status).toBe(503);
    const forged = await call(
      jwksNode.url,
      'GET',
      `/cam1/index.m3u8?token=${await sign(other.privateKey, { stream: 'cam1' })}`,
    );
    expect(forged.status).toBe(403);
    const wrong = await call(
      jwksNode.url,
      'GET',
      `/cam1/index.m3u8?token=${await sign(privateKey, { stream: 'cam2' })}`,
    );
    expect(wrong.status).toBe(403);
    const hs = await call(jwksNode.url, 'GET', `/cam1/index.m3u8?token=${await viewer({ stream: 'cam1', sub: 'u' })}`);
    expect(hs.status).toBe(403);
  });
});
