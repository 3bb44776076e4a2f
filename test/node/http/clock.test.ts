import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildNodeApp, type NodeApp } from '../../../src/node/app.js';
import { parseConfig } from '../../../src/node/config/validate.js';
import { call, freePort, tempDir } from '../helpers/node-process.js';

/**
 * Time rules on a real listening server built in-process with a manual clock: the CLI process
 * cannot be made to live 12 hours, but buildNodeApp takes its clock from the caller.
 */
let now = Date.parse('2026-03-01T10:00:00Z');
const clock = { now: () => now };
let node: NodeApp;
let base: string;

beforeAll(async () => {
  const dir = await tempDir();
  const port = await freePort();
  const text = `http 127.0.0.1:${port};\ndata_dir ${dir}/data;\ntrusted_proxies 127.0.0.1;\nlog_level silent;\nauth { admin_password clock-pw; }\nauth_backend { hs256 viewer-secret-0123456789; }\nstream cam1 { input rtsp://127.0.0.1:9/none; }\n`;
  const configPath = join(dir, 'argus-node.conf');
  await writeFile(configPath, text);
  node = await buildNodeApp({
    configPath,
    configText: text,
    config: parseConfig(text, dir).config,
    clock,
    logger: pino({ level: 'silent' }),
  });
  [base] = await node.listen();
});
let stopped = false;
afterAll(async () => {
  if (!stopped) await node?.stop();
});

const login = (password: string, xff = '192.0.2.1') =>
  call(base, 'POST', '/api/v1/auth/login', { body: { password }, headers: { 'x-forwarded-for': xff } });

describe('time rules (in-process node, manual clock)', () => {
  it('a session token is valid for 12 hours, not a second more', async () => {
    const { json } = await login('clock-pw');
    expect(json.expires_at).toBe(Math.floor(now / 1000) + 43_200);
    const t0 = now;
    now = t0 + 43_199_000;
    expect((await call(base, 'GET', '/api/v1/streams', { token: json.token })).status).toBe(200);
    now = t0 + 43_201_000;
    expect((await call(base, 'GET', '/api/v1/streams', { token: json.token })).status).toBe(401);
  });

  it('a media grant is valid for 300 seconds', async () => {
    const { json: s } = await login('clock-pw');
    const { json: g } = await call(base, 'POST', '/api/v1/auth/media-grants', {
      token: s.token,
      body: { stream: 'cam1', intent: 'live', protocols: ['hls'] },
    });
    const t0 = now;
    now = t0 + 299_000;
    expect((await call(base, 'GET', `/cam1/index.m3u8?token=${g.token}`)).status).toBe(503);
    now = t0 + 301_000;
    expect((await call(base, 'GET', `/cam1/index.m3u8?token=${g.token}`)).status).toBe(403);
  });

  it('the throttling window closes 60 s after the last failure', async () => {
    const xff = '192.0.2.77';
    await Promise.all(Array.from({ length: 5 }, () => login('wrong', xff)));
    const blocked = await login('clock-pw', xff);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('60');
    now += 30_000;
    expect((await login('clock-pw', xff)).headers.get('retry-after')).toBe('30');
    now += 30_001;
    expect((await login('clock-pw', xff)).status).toBe(200);
  });

  it('a history entry carries the clock time', async () => {
    const { json: s } = await login('clock-pw');
    await call(base, 'PATCH', '/api/v1/config/globals', { token: s.token, body: { log_level: 'fatal' } });
    const h = (await call(base, 'GET', '/api/v1/config/history', { token: s.token })).json;
    expect(h[h.length - 1]).toMatchObject({ ts_ms: now, via: 'api', actor: 'admin' });
  });

  it('stop gives a stuck recording 5 s, and one that closes ends the wait early', async () => {
    let closed = false;
    node.services.recordings.add({
      stream: 'cam1',
      close: async () => {
        await new Promise((r) => setTimeout(r, 100));
        closed = true;
      },
    });
    node.services.recordings.add({ stream: 'stuck', close: () => new Promise(() => {}) });
    const t0 = performance.now();
    stopped = true;
    expect(await node.stop()).toBe(1);
    const took = performance.now() - t0;
    expect(closed).toBe(true);
    expect(took).toBeGreaterThanOrEqual(4990);
    expect(took).toBeLessThan(6500);
  }, 15_000);
});
