import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import sharp from 'sharp';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { freshDatabase, ROOT, type TestDb } from '../harness.js';
import { PlaneProcess, PLANE_MAIN } from '../reliability/plane-process.js';
import { freePort } from '../../node/helpers/node-process.js';
import { SseReader } from '../sse-client.js';
import { startS3rver } from '../evidence/s3rver.js';
import { call, HaProxy, haproxyBinary, haproxyConfig, PROXY_SOURCE } from './haproxy.js';

const BASE = process.env.TEST_DATABASE_URL;
const BIN = haproxyBinary();
if (BASE && !BIN) console.warn('load-balancer suite skipped: haproxy not found (apt-get install -y haproxy)');

/** Two real plane executables on one PostgreSQL database behind a real HAProxy (document 4 §15). */
describe.skipIf(!BASE || !BIN)('several planes behind a load balancer (HAProxy, PostgreSQL)', () => {
  let db: TestDb;
  let dir: string;
  let front: number;
  let proxy: HaProxy;
  let s3: ChildProcess;
  let s3Port: number;
  const planes: Record<string, PlaneProcess> = {};

  beforeAll(async () => {
    if (!existsSync(PLANE_MAIN)) throw new Error(`${PLANE_MAIN} is missing: run "npm run build"`);
    db = await freshDatabase();
    dir = await mkdtemp(join(tmpdir(), 'argus-lb-'));
    front = await freePort();
    const ports = [await freePort(), await freePort()];
    // Evidence on one S3 server for both processes; explicit keys, never the SDK's default credential chain.
    s3Port = await freePort();
    s3 = await startS3rver(s3Port, join(dir, 's3'));
    // One after the other: the first migrates the database, the second finds it migrated.
    for (const [i, port] of ports.entries()) {
      const home = join(dir, `plane${i + 1}`);
      await mkdir(home);
      await writeFile(
        join(home, 'plane.toml'),
        `[network]\npublic_url = "http://127.0.0.1:${front}"\nlisten = "127.0.0.1:${port}"\n` +
          `trusted_proxies = ["${PROXY_SOURCE}"]\n\n[sweeper]\ninterval_secs = 2\ntimeout_secs = 1\n\n` +
          `[evidence_storage]\nbackend = "s3"\nendpoint = "127.0.0.1:${s3Port}"\nbucket = "evidence"\n` +
          `https = false\naddressing = "path"\naccess_key = "S3RVER"\nsecret_key = "S3RVER"\nmax_bytes = 1073741824\n`,
      );
      const p = new PlaneProcess(home, db.url!, port);
      await p.start();
      planes[`plane${i + 1}`] = p;
    }
    proxy = new HaProxy(BIN!, dir);
    await proxy.start(haproxyConfig(front, ports), front);
  }, 120_000);

  afterAll(async () => {
    await proxy?.stop();
    for (const p of Object.values(planes)) await p.stop();
    s3?.kill('SIGKILL');
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('signs in on either process, and a session from one is accepted by the other', async () => {
    const seen = new Set<string>();
    let token = '';
    for (let i = 0; i < 4; i++) {
      const r = await call(front, 'POST', '/api/v1/auth/login', { body: ROOT });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      seen.add(r.backend!);
      token = r.body.token;
    }
    expect([...seen].sort()).toEqual(['plane1', 'plane2']);
    for (let i = 0; i < 2; i++) {
      const r = await call(front, 'GET', '/api/v1/auth/me', { token });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
  });

  it('counts failed logins of one address across both processes, by the address the proxy forwards', async () => {
    // The address budget is 4 × attempts (20 with the defaults); distinct login names keep the per-login budget out of it.
    const served = new Set<string>();
    let first429 = -1;
    for (let i = 0; i < 24 && first429 < 0; i++) {
      const r = await call(front, 'POST', '/api/v1/auth/login', {
        body: { login: `nobody-${i}`, password: 'wrong-password-here' },
        from: '127.0.0.5',
      });
      served.add(r.backend!);
      if (r.status === 429) first429 = i;
      else expect(r.status, JSON.stringify(r.body)).toBe(401);
    }
    expect([...served].sort()).toEqual(['plane1', 'plane2']);
    expect(first429).toBe(20);
    // Another client address, through the same proxy, has its own budget: the planes read X-Forwarded-For.
    const other = await call(front, 'POST', '/api/v1/auth/login', {
      body: { login: 'nobody-else', password: 'wrong-password-here' },
      from: '127.0.0.6',
    });
    expect(other.status).toBe(401);
  });

  it('evidence on S3: uploaded through one process, read byte for byte through the other and through the proxy', async () => {
    const token = (await call(front, 'POST', '/api/v1/auth/login', { body: ROOT })).body.token as string;
    const made = async (path: string, body: unknown) => {
      const r = await call(front, 'POST', path, { body, token });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body;
    };
    const node = await made('/api/v1/nodes', {
      name: 'lb-node',
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    });
    const camera = await made('/api/v1/cameras', {
      name: 'lb-cam',
      node_id: node.id,
      main_source: 'rtsp://10.0.0.1/a',
      tag_ids: [],
    });
    const module = (await made('/api/v1/module-tokens', { name: 'lb-module', rate_limit: 100_000 })).secret as string;
    const { plane1: up, plane2: other } = planes;
    const auth = (t: string) => ({ authorization: `Bearer ${t}` });

    // A PNG, so that the evidence preview is built too.
    const image = await sharp({
      create: { width: 640, height: 360, channels: 3, background: { r: 20, g: 90, b: 200 } },
    })
      .png()
      .toBuffer();
    // Bytes that no image decoder wants after the PNG's end: a download must carry them all the same.
    const bytes = Buffer.concat([image, randomBytes(100_000)]);
    const stored = await fetch(`${up!.base}/api/v1/attachments`, {
      method: 'POST',
      headers: { ...auth(module), 'content-type': 'image/png' },
      body: bytes,
    });
    const ref = ((await stored.json()) as { ref: string }).ref;
    expect(stored.status).toBe(201);
    const event = await up!.req(
      'POST',
      '/api/v1/events',
      {
        events: [
          { detector: 'lb.s3', occurred_at: new Date().toISOString(), camera_id: camera.id, attachments: [ref] },
        ],
      },
      module,
    );
    expect(event.body.results?.[0]?.id, JSON.stringify(event.body)).toBeDefined();

    // The bytes are in the bucket, read here with a client of the test's own.
    const key = await sql<{
      storage_key: string;
    }>`select storage_key from attachments where ref = ${ref}::uuid`.execute(db.database.db);
    const bucket = new S3Client({
      endpoint: `http://127.0.0.1:${s3Port}`,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const object = await bucket.send(new GetObjectCommand({ Bucket: 'evidence', Key: key.rows[0]!.storage_key }));
    expect(Buffer.compare(Buffer.from(await object.Body!.transformToByteArray()), bytes)).toBe(0);
    bucket.destroy();

    const download = async (base: string, path: string) => {
      const r = await fetch(base + path, { headers: auth(token) });
      return { status: r.status, bytes: Buffer.from(await r.arrayBuffer()), backend: r.headers.get('x-argus-backend') };
    };
    const direct = await download(other!.base, `/api/v1/attachments/${ref}`);
    expect(direct.status).toBe(200);
    expect(Buffer.compare(direct.bytes, bytes)).toBe(0);
    const served = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const r = await download(`http://127.0.0.1:${front}`, `/api/v1/attachments/${ref}`);
      expect(r.status).toBe(200);
      expect(Buffer.compare(r.bytes, bytes)).toBe(0);
      served.add(r.backend!);
    }
    expect([...served].sort()).toEqual(['plane1', 'plane2']);

    // The preview is an object in the bucket beside the attachment's: whichever process builds it
    // (the uploader's queue, or a request for a missing one), both then serve the same bytes.
    const until = Date.now() + 30_000;
    let preview = await download(other!.base, `/api/v1/attachments/${ref}/preview`);
    while (preview.status !== 200) {
      if (Date.now() > until) throw new Error(`no preview: ${preview.status} ${preview.bytes.toString()}`);
      await sleep(100);
      preview = await download(other!.base, `/api/v1/attachments/${ref}/preview`);
    }
    expect([...preview.bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const again = await download(up!.base, `/api/v1/attachments/${ref}/preview`);
    expect(again.status).toBe(200);
    expect(Buffer.compare(again.bytes, preview.bytes)).toBe(0);
  });

  it('resumes the audit stream on the survivor with Last-Event-ID after SIGKILL, with no gap; the sweeper lease moves', async () => {
    const token = (await call(front, 'POST', '/api/v1/auth/login', { body: ROOT })).body.token as string;
    const start = await sql<{ seq: string }>`select coalesce(max(seq), 0)::text as seq from audit`.execute(
      db.database.db,
    );
    const from = Number(start.rows[0]!.seq);
    const url = `http://127.0.0.1:${front}/api/v1/audit/stream`;
    const first = await SseReader.open(url, { authorization: `Bearer ${token}` });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const victim = first.headers!.get('x-argus-backend')!;
    const survivor = victim === 'plane1' ? 'plane2' : 'plane1';

    // Audit records written on both processes reach the stream (the planes share them over the database).
    for (let i = 0; i < 4; i++) await call(front, 'POST', '/api/v1/auth/login', { body: ROOT });
    await first.until((r) => r.events.length >= 4, 10_000);
    const lease = async () =>
      (
        await sql<{
          holder: string;
          expires_at: Date;
        }>`select holder, expires_at from sweeper_lease where id = 1`.execute(db.database.db)
      ).rows[0];
    const before = await lease();
    expect(before).toBeDefined();

    await planes[victim]!.kill9();
    const killedAt = Date.now();
    await first.until((r) => r.ended, 10_000);
    const last = first.events.at(-1)!.id!;
    // Written while no stream is open: the resumed stream must replay them.
    for (let i = 0; i < 3; i++) {
      const r = await call(front, 'POST', '/api/v1/auth/login', { body: ROOT });
      expect(r.status).toBe(200);
      expect(r.backend).toBe(survivor);
    }
    const second = await SseReader.open(url, { authorization: `Bearer ${token}`, 'last-event-id': last });
    expect(second.status).toBe(200);
    expect(second.headers!.get('x-argus-backend')).toBe(survivor);
    const want = await sql<{
      seq: string;
    }>`select seq::text as seq from audit where seq > ${from} order by seq`.execute(db.database.db);
    const wanted = want.rows.map((r) => `g:${r.seq}`);
    await second.until((r) => r.events.length >= wanted.length - first.events.length, 10_000);
    const got = [...first.events, ...second.events].map((e) => e.id);
    first.close();
    second.close();
    expect(got).toEqual(wanted);
    expect(second.events.every((e) => e.replay)).toBe(true);
    console.log(
      `audit stream: ${first.events.length} frames on ${victim}, ${second.events.length} replayed on ${survivor}`,
    );

    // The lease runs 3 sweeps (6 s here) past its last renewal: after that only the survivor can hold it.
    let after = await lease();
    while (!(after && after.expires_at.getTime() > killedAt + 6_500)) {
      if (Date.now() - killedAt > 30_000) throw new Error(`lease not renewed: ${JSON.stringify(after)}`);
      await sleep(250);
      after = await lease();
    }
    const moved = after.holder !== before!.holder;
    console.log(
      `sweeper lease: held by the ${moved ? 'killed process, taken by the survivor' : 'survivor throughout'}, ` +
        `renewed until ${after.expires_at.getTime() - killedAt} ms after the kill`,
    );
    expect(after.expires_at.getTime()).toBeGreaterThan(Date.now());
  });
});
