import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { Fmp4Parser } from '../../../../src/node/media/live-ws/fmp4-boxes.js';
import { call, startNode, type RunningNode } from '../../helpers/node-process.js';
import { MEDIA_ENV, TESTSRC, stopAndReap, waitFor, waitState } from '../media-helpers.js';

/**
 * Live over WebSocket on a real node with a real testsrc ingest: the init segment first, then
 * fragments from a key frame; admission as index.m3u8's (viewer token or media grant, each
 * needing protocol `ws`), refusals as HTTP answers before the upgrade; the viewer as a session of
 * protocol `ws` while its socket is open.
 */
const SECRET = 'ws-viewer-secret-0123456789';
const PASSWORD = 'ws-node-password';
const READ = 'read-token-0123456789';
const WRITE = 'write-token-0123456789';
let node: RunningNode;
let session: string;

const viewerToken = (claims: Record<string, unknown>) =>
  new SignJWT({ typ: 'viewer', stream: 'cam1', sub: 'u-1', subject_kind: 'user', subject_name: 'alice', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));

const wsUrl = (path: string) => `${node.url.replace(/^http/, 'ws')}${path}`;

async function grant(protocols: string[]): Promise<string> {
  const r = await call(node.url, 'POST', '/api/v1/auth/media-grants', {
    token: session,
    body: { stream: 'cam1', intent: 'live', protocols },
  });
  expect(r.status).toBe(200);
  return r.json.token as string;
}

/** The HTTP answer to an upgrade the node refuses. */
function refusal(path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(path));
    ws.once('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    ws.once('error', () => undefined);
  });
}

/** Opens a viewer and collects its first `count` messages. */
function watch(path: string, count: number, headers: Record<string, string> = {}) {
  const ws = new WebSocket(wsUrl(path), { headers });
  const messages: Buffer[] = [];
  const done = new Promise<Buffer[]>((resolve, reject) => {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      expect(isBinary).toBe(true);
      messages.push(data);
      if (messages.length === count) resolve(messages.slice());
    });
    ws.once('error', reject);
    ws.once('close', () => reject(new Error(`closed after ${messages.length} messages`)));
  });
  return { ws, done };
}

const boxType = (b: Buffer) => b.toString('latin1', 4, 8);

async function sessionsOf(protocol: string): Promise<Array<Record<string, unknown>>> {
  const r = await call(node.url, 'GET', '/api/v1/sessions', { token: READ });
  expect(r.status).toBe(200);
  return (r.json.rows as Array<Record<string, unknown>>).filter((x) => x.protocol === protocol);
}

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
`,
    { env: MEDIA_ENV },
  );
  session = (await call(node.url, 'POST', '/api/v1/auth/login', { body: { password: PASSWORD } })).json.token;
  await waitState(node, 'cam1', 'live', 20_000, READ);
});
afterAll(async () => {
  // Also proves that no refused upgrade's socket is left open: the node's stop would wait for it.
  expect(await stopAndReap(node)).toEqual([]);
});

describe('GET /{stream}/live.ws', () => {
  it('sends the init segment first, then fragments one per message from a key frame; a ws session while open', async () => {
    const token = await viewerToken({ protocols: ['hls', 'ws'] });
    const { ws, done } = watch(`/cam1/live.ws?token=${token}`, 12, { 'user-agent': 'ws-test/1.0' });
    const messages = await done;
    expect(boxType(messages[0])).toBe('ftyp');
    for (const m of messages.slice(1)) expect(['prft', 'moof']).toContain(boxType(m));
    // Each message is exactly one piece, and the first fragment starts with a key frame.
    const parser = new Fmp4Parser();
    const pieces = messages.map((m) => parser.push(m));
    expect(pieces.every((p) => p.length === 1)).toBe(true);
    expect(pieces[0][0].kind).toBe('init');
    expect(pieces[1][0]).toMatchObject({ kind: 'fragment', key: true });
    expect(messages[1].includes(Buffer.from('prft'))).toBe(true);

    const rows = await sessionsOf('ws');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      stream: 'cam1',
      protocol: 'ws',
      client_ip: '127.0.0.1',
      user_agent: 'ws-test/1.0',
      sub: 'u-1',
      subject_name: 'alice',
    });
    ws.close();
    await waitFor('the ws session to end', async () => ((await sessionsOf('ws')).length === 0 ? true : null));
  });

  it('admits a media grant whose protocols include ws', async () => {
    const { ws, done } = watch(`/cam1/live.ws?token=${await grant(['ws'])}`, 2);
    const [first, second] = await done;
    expect(boxType(first)).toBe('ftyp');
    expect(['prft', 'moof']).toContain(boxType(second));
    ws.close();
  });

  it('a viewer token without protocols opens it, as it opens HLS', async () => {
    const { ws, done } = watch(`/cam1/live.ws?token=${await viewerToken({})}`, 1);
    expect(boxType((await done)[0])).toBe('ftyp');
    ws.close();
  });

  it('refuses before the upgrade with index.m3u8’s answers', async () => {
    const forbidden = { error: 'forbidden', reason: 'viewer_token_invalid' };
    expect(await refusal('/cam1/live.ws')).toMatchObject({ status: 403, body: forbidden });
    expect(await refusal(`/cam1/live.ws?token=${await viewerToken({ protocols: ['hls'] })}`)).toMatchObject({
      status: 403,
      body: forbidden,
    });
    expect(await refusal(`/cam1/live.ws?token=${await grant(['hls'])}`)).toMatchObject({
      status: 403,
      body: forbidden,
    });
    expect((await refusal(`/cam9/live.ws?token=${await viewerToken({ stream: 'cam9' })}`)).status).toBe(404);
    // The management credentials are not media credentials.
    expect((await refusal(`/cam1/live.ws?token=${READ}`)).status).toBe(403);
    // index.m3u8 answers the same for the same credential.
    const hlsOnly = await viewerToken({ protocols: ['ws'] });
    expect((await call(node.url, 'GET', `/cam1/index.m3u8?token=${hlsOnly}`)).status).toBe(403);
    expect(await sessionsOf('ws')).toEqual([]);
  });

  it('a plain GET of the WebSocket URL is not a resource', async () => {
    const r = await call(node.url, 'GET', `/cam1/live.ws?token=${await viewerToken({ protocols: ['ws'] })}`);
    expect(r.status).toBe(404);
  });

  it('an ingest restart (a new input) sends the new init segment on the open socket, then fragments from a key frame', async () => {
    const token = await viewerToken({ protocols: ['ws'] });
    const ws = new WebSocket(wsUrl(`/cam1/live.ws?token=${token}`));
    const messages: Buffer[] = [];
    ws.on('message', (data: Buffer) => messages.push(data));
    await waitFor('the first fragments', async () => (messages.length >= 3 ? true : null));
    const put = await call(node.url, 'PUT', '/api/v1/streams/cam1', {
      token: WRITE,
      body: { input: 'testsrc://t?size=192x108&rate=10&bitrate=100' },
    });
    expect(put.status).toBe(200);
    const second = await waitFor(
      'a second init segment and a fragment after it',
      async () => {
        const i = messages.findIndex((m, n) => n > 0 && boxType(m) === 'ftyp');
        return i > 0 && messages.length > i + 1 ? i : null;
      },
      30_000,
    );
    const parser = new Fmp4Parser();
    const [init] = parser.push(messages[second]);
    expect(init.kind).toBe('init');
    expect(parser.push(messages[second + 1])[0]).toMatchObject({ kind: 'fragment', key: true });
    expect(await sessionsOf('ws')).toHaveLength(1);
    ws.close();
  });
});
