import { afterAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { call, startNode, tempDir, type RunningNode } from '../helpers/node-process.js';

const READ = 'read-token-0123456789';
const WRITE = 'write-token-0123456789';
const started: RunningNode[] = [];
async function start(body: string, opts: Parameters<typeof startNode>[1] = {}): Promise<RunningNode> {
  const n = await startNode(body, opts);
  started.push(n);
  return n;
}
afterAll(async () => {
  await Promise.all(started.map((n) => n.stop()));
});

function startupLines(n: RunningNode): { gate: string[]; metrics: string[] } {
  const msgs = n.logs.map((l) => l.msg);
  return {
    gate: msgs.filter((m) => m.startsWith('management gate')),
    metrics: msgs.filter((m) => m.startsWith('/metrics')),
  };
}

describe('a node with no gate credential at all', () => {
  it('leaves the API open, keeps /metrics closed (401 to every request) and warns once at start', async () => {
    const n = await start('stream cam1 { input testsrc://a; on_demand; }\n');
    expect((await call(n.url, 'GET', '/api/v1/streams')).status).toBe(200);
    expect((await call(n.url, 'GET', '/metrics')).status).toBe(401);
    expect((await call(n.url, 'GET', '/metrics', { token: 'anything-at-all-123' })).status).toBe(401);
    const lines = startupLines(n);
    expect(lines.gate).toEqual([
      'management gate OPEN: no admin_password, api_read_token or api_write_token is set; the panel and /api/v1 are unauthenticated',
    ]);
    expect(n.logs.find((l) => l.msg === lines.gate[0])?.level).toBe(40);
    expect(lines.metrics).toEqual([
      '/metrics is closed (since build 2026.08): no credential is configured, so every request answers 401',
    ]);
  });

  it('login answers 404, media grants 409 admin_auth_disabled', async () => {
    const n = started[0];
    const login = await call(n.url, 'POST', '/api/v1/auth/login', { body: { password: 'x' } });
    expect(login.status).toBe(404);
    expect(login.json.error).toBe('not_found');
    const g = await call(n.url, 'POST', '/api/v1/auth/media-grants', {
      body: { stream: 'cam1', intent: 'live', protocols: ['hls'] },
    });
    expect(g.status).toBe(409);
    expect(g.json).toEqual({ error: 'admin_auth_disabled' });
  });

  it('the first-run wizard closes the gate by rewriting the auth block, without restart', async () => {
    const n = started[0];
    const r = await call(n.url, 'PATCH', '/api/v1/config/globals', {
      body: { auth: { admin_password: 'first run pw', api_read_token: READ } },
    });
    expect(r.status).toBe(200);
    expect((await call(n.url, 'GET', '/api/v1/streams')).status).toBe(401);
    expect((await call(n.url, 'GET', '/metrics', { token: READ })).status).toBe(200);
    expect((await call(n.url, 'POST', '/api/v1/auth/login', { body: { password: 'first run pw' } })).status).toBe(200);
  });
});

describe('a node with static tokens and no password', () => {
  it('gates the API by tokens alone; login answers 404; one note line at start', async () => {
    const n = await start(`auth {\n    api_read_token ${READ};\n    api_write_token ${WRITE};\n}\n`);
    expect((await call(n.url, 'GET', '/api/v1/streams')).status).toBe(401);
    expect((await call(n.url, 'GET', '/api/v1/streams', { token: READ })).status).toBe(200);
    const login = await call(n.url, 'POST', '/api/v1/auth/login', { body: { password: 'x' } });
    expect(login.status).toBe(404);
    const lines = startupLines(n);
    expect(lines.gate).toEqual([
      'management gate: static API tokens only (no admin_password); the panel login does not exist and POST /api/v1/auth/login answers 404',
    ]);
    expect(lines.metrics).toEqual([
      '/metrics is closed (since build 2026.08): it accepts Authorization: Bearer with the read token, the write token or an administrator session token',
    ]);
  });

  it('a single read token cannot leave the panel open', async () => {
    const n = await start(`auth { api_read_token ${READ}; }\n`);
    expect((await call(n.url, 'GET', '/api/v1/system')).status).toBe(401);
    expect((await call(n.url, 'PATCH', '/api/v1/config/globals', { body: { log_level: 'debug' } })).status).toBe(401);
  });
});

describe('a node with only the password', () => {
  it('/metrics accepts only an administrator session bearer', async () => {
    const n = await start('auth { admin_password pw-only-node; }\n');
    expect(startupLines(n).metrics).toEqual([
      '/metrics is closed (since build 2026.08): no static tokens are set, so it accepts only an administrator session bearer',
    ]);
    const { json } = await call(n.url, 'POST', '/api/v1/auth/login', { body: { password: 'pw-only-node' } });
    expect((await call(n.url, 'GET', '/metrics', { token: json.token })).status).toBe(200);
    expect((await call(n.url, 'GET', '/metrics')).status).toBe(401);
    const g = await call(n.url, 'POST', '/api/v1/auth/media-grants', {
      token: json.token,
      body: { stream: 'cam1', intent: 'live', protocols: ['hls'] },
    });
    expect(g.status).toBe(409);
    expect(g.json).toEqual({ error: 'media_auth_disabled' });
    const rot = await call(n.url, 'POST', '/api/v1/auth/rotate-session-keys', { token: json.token });
    expect(rot.status).toBe(409);
    expect(rot.json).toEqual({ error: 'media_auth_disabled' });
  });
});

describe('admin_ip_bind', () => {
  const login = (n: RunningNode, xff: string) =>
    call(n.url, 'POST', '/api/v1/auth/login', { body: { password: 'bound-pw' }, headers: { 'x-forwarded-for': xff } });

  it('with trusted_proxies, binds the session to the client address behind the proxy', async () => {
    const n = await start('trusted_proxies 127.0.0.1;\nauth {\n    admin_password bound-pw;\n    admin_ip_bind;\n}\n');
    const { json } = await login(n, '192.0.2.10');
    const use = (xff: string) =>
      call(n.url, 'GET', '/api/v1/streams', { token: json.token, headers: { 'x-forwarded-for': xff } });
    expect((await use('192.0.2.10')).status).toBe(200);
    expect((await use('192.0.2.11')).status).toBe(401);
  });

  it('without trusted_proxies, the binding fixes on the proxy address', async () => {
    const n = await start('auth {\n    admin_password bound-pw;\n    admin_ip_bind on;\n}\n');
    const { json } = await login(n, '192.0.2.10');
    const r = await call(n.url, 'GET', '/api/v1/streams', {
      token: json.token,
      headers: { 'x-forwarded-for': '192.0.2.99' },
    });
    expect(r.status).toBe(200);
  });

  it('off: a session token works from any address', async () => {
    const n = await start(
      'trusted_proxies 127.0.0.1;\nauth {\n    admin_password bound-pw;\n    admin_ip_bind off;\n}\n',
    );
    const { json } = await login(n, '192.0.2.10');
    const r = await call(n.url, 'GET', '/api/v1/streams', {
      token: json.token,
      headers: { 'x-forwarded-for': '192.0.2.11' },
    });
    expect(r.status).toBe(200);
  });
});

describe('session tokens across a restart', () => {
  async function sessionAfterRestart(auth: string): Promise<number> {
    const dir = await tempDir();
    const a = await startNode(`auth {\n${auth}\n}\n`, { dir });
    const { json } = await call(a.url, 'POST', '/api/v1/auth/login', { body: { password: 'restart-pw' } });
    expect((await call(a.url, 'GET', '/api/v1/streams', { token: json.token })).status).toBe(200);
    expect(await a.stop()).toBe(0);
    const b = await startNode(null, { dir, port: a.port });
    started.push(b);
    return (await call(b.url, 'GET', '/api/v1/streams', { token: json.token })).status;
  }

  it('survive when session_secret is set, die when it is not', async () => {
    const [kept, lost] = await Promise.all([
      sessionAfterRestart('admin_password restart-pw;\nsession_secret "a fixed secret for sessions";'),
      sessionAfterRestart('admin_password restart-pw;'),
    ]);
    expect(kept).toBe(200);
    expect(lost).toBe(401);
  });

  it('a changed password closes the sessions of the old one (hot)', async () => {
    const n = await start('auth {\n    admin_password old-password;\n    session_secret "fixed secret value";\n}\n');
    const { json } = await call(n.url, 'POST', '/api/v1/auth/login', { body: { password: 'old-password' } });
    const r = await call(n.url, 'PATCH', '/api/v1/config/globals', {
      token: json.token,
      body: { auth: { admin_password: 'new-password', session_secret: 'fixed secret value' } },
    });
    expect(r.status).toBe(200);
    expect((await call(n.url, 'GET', '/api/v1/streams', { token: json.token })).status).toBe(401);
  });
});

describe('stop', () => {
  it('SIGTERM stops the node at once when no recording is open', async () => {
    const n = await startNode('');
    const t0 = performance.now();
    expect(await n.stop('SIGTERM')).toBe(0);
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(n.logs.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['stopping: closing open recordings (up to 5 s)', 'stopped']),
    );
  });
});

describe('reload (SIGHUP)', () => {
  it('applies a hand-edited file without restart and records it; an invalid file is refused', async () => {
    const n = await start(`auth { api_write_token ${WRITE}; }\n`);
    const body = (await import('node:fs/promises')).readFile;
    const text = await body(n.configPath, 'utf8');
    await writeFile(n.configPath, text.replace(`api_write_token ${WRITE};`, `api_write_token ${WRITE}-v2;`));
    n.proc.kill('SIGHUP');
    await n.waitForLog((l) => l.msg === 'configuration reloaded');
    expect((await call(n.url, 'GET', '/api/v1/streams', { token: WRITE })).status).toBe(401);
    const h = await call(n.url, 'GET', '/api/v1/config/history', { token: `${WRITE}-v2` });
    expect(h.json.map((e: { via: string }) => e.via)).toEqual(['boot', 'reload']);

    await writeFile(n.configPath, 'auth { api_write_token short; }\n');
    n.proc.kill('SIGHUP');
    const refused = await n.waitForLog((l) => l.msg.startsWith('reload refused'));
    expect(refused.problems).toEqual(['line 1: api_write_token must be at least 16 characters']);
    expect((await call(n.url, 'GET', '/api/v1/streams', { token: `${WRITE}-v2` })).status).toBe(200);
  });
});

describe('hot application of every auth parameter', () => {
  it('session_secret and admin_ip_bind changed through the API apply to the next request', async () => {
    const n = await start(
      'trusted_proxies 127.0.0.1;\nauth {\n    admin_password hot-pw;\n    session_secret "first secret value";\n}\n',
    );
    const login = async (xff: string) =>
      (
        await call(n.url, 'POST', '/api/v1/auth/login', {
          body: { password: 'hot-pw' },
          headers: { 'x-forwarded-for': xff },
        })
      ).json.token as string;
    const use = async (token: string, xff: string) =>
      (await call(n.url, 'GET', '/api/v1/streams', { token, headers: { 'x-forwarded-for': xff } })).status;
    const first = await login('192.0.2.1');
    const patch = (auth: Record<string, unknown>) =>
      call(n.url, 'PATCH', '/api/v1/config/globals', {
        token: first,
        body: { auth: { admin_password: 'hot-pw', ...auth } },
      });

    expect((await patch({ session_secret: 'first secret value', admin_ip_bind: true })).status).toBe(200);
    expect(await use(first, '192.0.2.2')).toBe(200);
    const bound = await login('192.0.2.1');
    expect(await use(bound, '192.0.2.1')).toBe(200);
    expect(await use(bound, '192.0.2.2')).toBe(401);

    expect((await patch({ session_secret: 'second secret value' })).status).toBe(200);
    expect(await use(first, '192.0.2.1')).toBe(401);
    const second = await login('192.0.2.1');
    expect(await use(second, '192.0.2.2')).toBe(200);
  });
});

describe('listeners', () => {
  it('every http line is a listener behind the same gate, and the start-up output lists them', async () => {
    const { freePort } = await import('../helpers/node-process.js');
    const second = await freePort();
    const n = await start(`http 127.0.0.1:${second};\nauth { api_read_token ${READ}; }\n`);
    expect(n.logs.map((l) => l.msg)).toContain(`listening on http://127.0.0.1:${n.port}, http://127.0.0.1:${second}`);
    const other = `http://127.0.0.1:${second}`;
    expect((await call(other, 'GET', '/api/v1/streams')).status).toBe(401);
    expect((await call(other, 'GET', '/api/v1/streams', { token: READ })).status).toBe(200);
    expect((await call(other, 'GET', '/admin')).status).toBe(200);
  });
});
