import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildNodeApp, type NodeApp } from '../../../src/node/app.js';
import { parseConfig } from '../../../src/node/config/validate.js';
import { makeNodeLogger } from '../../../src/node/logs/node-logger.js';
import { TEST_KEYS } from '../../../src/node/license/trusted-keys.js';
import type { BuildInfo } from '../../../src/common/build-info.js';
import { BUILD } from '../../../src/common/build-info.js';
import { call, freePort, signedLicense, tempDir } from '../helpers/node-process.js';

// The node's log ring and licence (document 4 section 9): GET /api/v1/logs and GET /api/v1/license,
// read-tier routes of the gate (document 3), on an in-process node whose logger feeds the ring.
const CANARY = 'NodeCanary5e4';
const READ = 'read-token-0123456789';
const WRITE = `write-token-${CANARY}-0123`;

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

let now = Date.parse('2026-03-01T10:00:00Z');
const clock = { now: () => now };
const build: BuildInfo = { ...BUILD, build_date: '2026-01-15' };
let node: NodeApp;
let base: string;
let dir: string;
const out = new Capture();

beforeAll(async () => {
  dir = await tempDir();
  const port = await freePort();
  const text =
    `http 127.0.0.1:${port};\ndata_dir ${dir}/data;\nlog_level debug;\n` +
    `auth { api_read_token ${READ}; api_write_token ${WRITE}; }\n` +
    `stream cam1 { input rtsp://cam:${CANARY}@127.0.0.1:9/none; }\n`;
  const configPath = join(dir, 'argus-node.conf');
  await writeFile(configPath, text);
  node = await buildNodeApp({
    configPath,
    configText: text,
    config: parseConfig(text, dir).config,
    clock,
    build,
    licenseKeys: TEST_KEYS,
    logger: makeNodeLogger('debug', { write: (s: string) => out.write(s) }),
  });
  [base] = await node.listen();
});
afterAll(async () => {
  await node?.stop();
});

type Page = {
  head_seq: number;
  capacity: number;
  entries: Array<{ seq: number; ts_ms: number; level: string; target: string; message: string }>;
};
const logs = async (query = '', token = READ): Promise<Page> => {
  const r = await call(base, 'GET', `/api/v1/logs${query}`, { token });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json as Page;
};
const own = async (query: string) =>
  (await logs(query)).entries.filter((e) => e.target !== 'argus_node::http' && !e.message.startsWith('request '));

describe('node gate tiers for /api/v1/logs and /api/v1/license', () => {
  it.each(['/api/v1/logs', '/api/v1/license'])(
    '%s: read and write tokens read; no or a wrong token 401; read token cannot write',
    async (path) => {
      expect((await call(base, 'GET', path, { token: READ })).status).toBe(200);
      expect((await call(base, 'GET', path, { token: WRITE })).status).toBe(200);
      const none = await call(base, 'GET', path);
      expect(none.status).toBe(401);
      expect(none.json).toEqual({ error: 'unauthorized' });
      expect((await call(base, 'GET', path, { token: 'not-a-token-0123456789' })).status).toBe(401);
      const write = await call(base, 'POST', path, { token: READ, body: {} });
      expect(write.status).toBe(403);
      expect(write.json).toEqual({ error: 'forbidden', reason: 'read_token_cannot_write' });
    },
  );
});

describe('GET /api/v1/logs (node)', () => {
  it('answers {head_seq, capacity, entries} newest first, fed by the node logger', async () => {
    node.services.log.child({ part: 'probe' }).info('node-probe-line');
    const p = await logs();
    expect(Object.keys(p).sort()).toEqual(['capacity', 'entries', 'head_seq']);
    expect(p.capacity).toBe(4096);
    expect(p.head_seq).toBeGreaterThan(0);
    const seqs = p.entries.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    const [probe] = await own('?q=node-probe-line');
    expect(probe).toMatchObject({ level: 'info', target: 'argus_node::probe', message: 'node-probe-line' });
  });

  it('filters by level, target, q; after and limit', async () => {
    const c = node.services.log.child({ part: 'nfilter' });
    c.debug('nf one');
    c.info('NF two');
    c.warn('nf three');
    c.error('nf four');
    const msgs = async (q: string) => (await own(q)).map((e) => e.message);
    expect(await msgs('?target=argus_node::nfilter')).toEqual(['nf four', 'nf three', 'NF two', 'nf one']);
    expect(await msgs('?target=argus_node::nfilter&level=all')).toHaveLength(4);
    expect(await msgs('?target=argus_node::nfilter&level=info')).toEqual(['nf four', 'nf three', 'NF two']);
    expect(await msgs('?target=argus_node::nfilter&level=error')).toEqual(['nf four']);
    expect(await msgs('?q=nf t')).toEqual(['nf three', 'NF two']);
    expect(await msgs('?q=NFILTER&level=warn')).toEqual(['nf four', 'nf three']);
    expect(await msgs('?target=argus_node::nfilter&limit=1')).toEqual(['nf four']);
    const all = await own('?target=argus_node::nfilter');
    expect(await msgs(`?target=argus_node::nfilter&after=${all[2]!.seq}`)).toEqual(['nf four', 'nf three']);
    expect((await logs('?limit=1000')).entries.length).toBeLessThanOrEqual(1000);
    expect((await logs()).entries.length).toBeLessThanOrEqual(500);
  });

  it('default limit 500 of a full ring', async () => {
    for (let i = 0; i < 1100; i++) node.services.log.info(`nbulk ${i}`);
    expect((await logs()).entries).toHaveLength(500);
    expect((await logs('?limit=1000')).entries).toHaveLength(1000);
  });

  it.each([
    ['?level=trace', 'invalid_request'],
    ['?limit=0', 'invalid_request'],
    ['?limit=1001', 'invalid_request'],
    ['?after=-1', 'invalid_request'],
    ['?after=x', 'invalid_request'],
    [`?target=${'t'.repeat(129)}`, 'log_filter_too_long'],
    [`?q=${'q'.repeat(129)}`, 'log_filter_too_long'],
  ])('400 for %s', async (q, code) => {
    const r = await call(base, 'GET', `/api/v1/logs${q}`, { token: READ });
    expect(r.status).toBe(400);
    expect((r.json as { error: string }).error).toBe(code);
  });

  it('truncates at capture: message 4096 bytes, target 128 bytes', async () => {
    node.services.log.child({ part: 'n'.repeat(300) }).warn('ntrunc ' + 'ü'.repeat(3000));
    const [e] = await own('?q=ntrunc&level=warn');
    expect(Buffer.byteLength(e!.message)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(e!.message)).toBeGreaterThan(4090);
    expect(Buffer.byteLength(e!.target)).toBe(128);
  });

  it('canary secrets (query tokens, tickets, bearer, stream URL credentials, fields) reach neither the ring, the reply nor stdout', async () => {
    const mark = (await logs()).head_seq;
    await call(base, 'GET', `/api/v1/streams?token=${CANARY}`, { token: READ });
    await call(base, 'GET', `/cam1/index.m3u8?t=${CANARY}&token=${CANARY}`);
    await call(base, 'GET', '/api/v1/streams', { token: `${CANARY}-wrong-token` });
    await call(base, 'GET', '/api/v1/config', { token: WRITE }); // the config (with its secrets) is read, not logged
    node.services.log.error(
      { input: `rtsp://cam:${CANARY}@10.0.0.1/s`, api_token: CANARY },
      `ingest failed: password=${CANARY} Authorization: Bearer ${CANARY}`,
    );
    const p = await logs(`?after=${mark}&limit=1000`);
    const text = JSON.stringify(p);
    expect(text).toContain('token=[redacted]'); // the request lines were logged, scrubbed
    expect(text).toContain('rtsp://cam:[redacted]@10.0.0.1/s');
    expect(text).not.toContain(CANARY);
    expect(out.text).toContain('[redacted]');
    expect(out.text).not.toContain(CANARY);
  });
});

describe('camera credentials in query strings (issue 25, item 5)', () => {
  it('the log ring and the stream list never hold pass=, pwd=, auth=... values', async () => {
    const mark = (await logs()).head_seq;
    const input = `rtsp://127.0.0.1:9/live?user=admin&pass=${CANARY}p&pwd=${CANARY}w&auth=${CANARY}a&passwd=${CANARY}d`;
    const put = await call(base, 'PUT', '/api/v1/streams/qcam', { token: WRITE, body: { input } });
    expect(put.status, JSON.stringify(put.json)).toBeLessThan(300);
    node.services.log.warn({ stream: 'qcam' }, `ingest failed: ${input}: Connection refused`);
    node.services.log.info(`camera said pass=${CANARY}x auth=${CANARY}y`);
    const streams = await call(base, 'GET', '/api/v1/streams', { token: READ });
    expect(JSON.stringify(streams.json)).not.toContain(CANARY);
    expect(JSON.stringify(streams.json)).toContain('pass=***');
    const text = JSON.stringify(await logs(`?after=${mark}&limit=1000`));
    expect(text).toContain('pass=[redacted]');
    expect(text).not.toContain(CANARY);
    expect(out.text).not.toContain(CANARY);
    expect((await call(base, 'DELETE', '/api/v1/streams/qcam', { token: WRITE })).status).toBe(200);
  });
});

describe('GET /api/v1/license (node)', () => {
  const file = () => join(dir, 'license.json');

  it('without a licence file: state none, the licence fields null, the build date', async () => {
    const r = await call(base, 'GET', '/api/v1/license', { token: READ });
    expect(r.json).toEqual({
      state: 'none',
      licensee: null,
      expires: null,
      updates_until: null,
      build_date: '2026-01-15',
    });
  });

  it('ok, then grace past expires, then unlicensed after 14 days', async () => {
    await writeFile(
      file(),
      signedLicense({ licensee: 'ACME', expires: '2026-06-30', updates_until: 'unlimited', nodes: 3 }),
    );
    await node.services.license.load();
    try {
      const read = async () => (await call(base, 'GET', '/api/v1/license', { token: READ })).json;
      expect(await read()).toEqual({
        state: 'ok',
        licensee: 'ACME',
        expires: '2026-06-30',
        updates_until: 'unlimited',
        build_date: '2026-01-15',
      });
      now = Date.parse('2026-07-05T10:00:00Z');
      expect(await read()).toMatchObject({ state: 'grace' });
      now = Date.parse('2026-07-20T10:00:00Z');
      expect(await read()).toMatchObject({ state: 'unlicensed', licensee: 'ACME' });
    } finally {
      now = Date.parse('2026-03-01T10:00:00Z');
      await rm(file(), { force: true });
      await node.services.license.load();
    }
  });

  it('a build dated after updates_until is unlicensed', async () => {
    await writeFile(
      file(),
      signedLicense({ licensee: 'ACME', expires: '2027-01-01', updates_until: '2025-12-31', nodes: 3 }),
    );
    await node.services.license.load();
    try {
      expect((await call(base, 'GET', '/api/v1/license', { token: READ })).json).toMatchObject({
        state: 'unlicensed',
        updates_until: '2025-12-31',
      });
    } finally {
      await rm(file(), { force: true });
      await node.services.license.load();
    }
  });
});
