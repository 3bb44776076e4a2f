import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CANARY, ROOT } from '../harness.js';
import { login, type Client } from '../client.js';
import { planeWithFile } from './plane-with-file.js';
import { fakeS3 } from '../evidence/fake-s3.js';

// The pre-check of a candidate evidence storage (PATCH and POST .../evidence-storage/test),
// hardened in issue 25.

const MARKS = {
  volume_retention: 'disabled',
  low_watermark_percent: 70,
  high_watermark_percent: 85,
  critical_watermark_percent: 95,
};

describe("a local evidence folder must be the plane's own (issue 25, finding 2)", () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  beforeAll(async () => {
    p = await planeWithFile();
    root = await login(p.t.plane.app, ROOT);
  });
  afterAll(async () => {
    await p?.close();
  });
  const local = (dir: string) => ({ evidence_storage: { backend: 'local', dir, ...MARKS } });
  const check = (dir: string) => root.post('/api/v1/settings/plane/evidence-storage/test', local(dir));
  const save = (dir: string) => root.req('PATCH', '/api/v1/settings/plane', local(dir));

  it.each(['/', '/etc', '/usr', '/var', '/proc', '/sys', '/dev', '/boot', '/dev/shm'])(
    '%s: 400 evidence_dir_refused, by the test and by a PATCH; nothing written',
    async (dir) => {
      const before = await readFile(p.file, 'utf8');
      for (const r of [await check(dir), await save(dir)]) {
        expect(r.status, r.text).toBe(400);
        expect(r.body).toEqual({ error: 'evidence_dir_refused', reason: expect.stringMatching(/system folder$/) });
      }
      expect(await readFile(p.file, 'utf8')).toBe(before);
    },
  );

  it('the data dir, and a folder holding other files: 400 with the reason; the files stay', async () => {
    const data = await check(p.dir);
    expect([data.status, data.body]).toEqual([
      400,
      { error: 'evidence_dir_refused', reason: `evidence_storage.dir: ${p.dir} is the plane's data dir` },
    ]);
    const busy = join(p.dir, 'photos');
    await mkdir(join(busy, 'holiday'), { recursive: true });
    await writeFile(join(busy, 'holiday', 'beach.jpg'), 'x');
    for (const r of [await check(busy), await save(busy)]) {
      expect(r.status, r.text).toBe(400);
      expect(r.body).toEqual({
        error: 'evidence_dir_refused',
        reason: `evidence_storage.dir: ${busy} holds files the plane did not write (holiday); give the evidence an empty folder of its own`,
      });
    }
    expect(await readdir(busy)).toEqual(['holiday']);
  });

  it('the test makes only the folder it names, never its parents', async () => {
    const deep = join(p.dir, 'not', 'there', 'evidence');
    const r = await check(deep);
    expect([r.status, r.body]).toEqual([502, { error: 'create the folder failed: ENOENT' }]);
    expect(existsSync(join(p.dir, 'not'))).toBe(false);
    const named = join(p.dir, 'fresh');
    expect((await check(named)).body).toEqual({ ok: true, rotation_blocked: false });
    expect(await readdir(named)).toEqual([]);
  });

  it('an empty folder, or one an earlier version filled (only the layout), is accepted and saved', async () => {
    const old = join(p.dir, 'earlier');
    await mkdir(join(old, '0190c1a2-0000-7000-8000-00000000000a', '2026-11-20'), { recursive: true });
    await writeFile(
      join(old, '0190c1a2-0000-7000-8000-00000000000a', '2026-11-20', '0190c1a2-0000-7000-8000-000000000001'),
      'evidence',
    );
    expect((await check(old)).body).toEqual({ ok: true, rotation_blocked: false });
    const r = await save(old);
    expect(r.status, r.text).toBe(200);
    expect(r.body.evidence_storage.saved).toMatchObject({ backend: 'local', dir: old });
  });
});

describe('an s3 candidate (issue 25, findings 4 and 11)', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  let saved: Awaited<ReturnType<typeof fakeS3>>, other: Awaited<ReturnType<typeof fakeS3>>;
  const ACCESS = `AKIA${CANARY}`,
    SECRET = `secret-${CANARY}`;
  const s3 = (endpoint: string, keys: Record<string, string> = {}) => ({
    evidence_storage: {
      backend: 's3',
      endpoint,
      bucket: 'evidence',
      https: false,
      addressing: 'path',
      max_bytes: 1 << 30,
      ...MARKS,
      ...keys,
    },
  });
  // A storage without keys signs with the SDK's default credentials (here: the environment's, as on a host with a role).
  const env = {
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY,
  };
  beforeAll(async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'ENVKEY', AWS_SECRET_ACCESS_KEY: 'ENVSECRET' });
    p = await planeWithFile();
    root = await login(p.t.plane.app, ROOT);
    [saved, other] = [await fakeS3(), await fakeS3()];
    // The storage saved by hand: an s3 section with its keys.
    await writeFile(
      p.file,
      (await readFile(p.file, 'utf8')).replace(
        '[evidence_storage]\nbackend = "local"',
        `[evidence_storage]\nbackend = "s3"\nendpoint = "${saved.endpoint}"\nbucket = "evidence"\nhttps = false\naccess_key = "${ACCESS}"\nsecret_key = "${SECRET}"\nmax_bytes = 1073741824`,
      ),
    );
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(env))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    await saved?.close();
    await other?.close();
    await p?.close();
  });
  const check = (body: unknown) => root.post('/api/v1/settings/plane/evidence-storage/test', body);

  it.each(['[0:0:0:0:0:ffff:a9fe:a9fe]', '[::ffff:0:a9fe:a9fe]', '[fd00:0ec2::254]', '[64:ff9b::a9fe:a9fe]:80'])(
    '%s: refused before any connection',
    async (endpoint) => {
      const r = await check(s3(endpoint));
      expect([r.status, r.body]).toEqual([502, { error: 'the endpoint resolves to a link-local or metadata address' }]);
      const patch = await root.req('PATCH', '/api/v1/settings/plane', s3(endpoint));
      expect([patch.status, patch.body]).toEqual([
        502,
        { error: 'the endpoint resolves to a link-local or metadata address' },
      ]);
    },
  );

  it('the saved keys go to the saved endpoint only: another endpoint named without keys gets none', async () => {
    expect((await check(s3(other.endpoint))).body).toEqual({ ok: true, rotation_blocked: false });
    expect(other.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(other.requests)).not.toContain(CANARY);
    expect(other.requests.every((h) => String(h.authorization).includes('Credential=ENVKEY/'))).toBe(true);
    // The saved endpoint named without keys: the stored keys sign the probe (the access key id is in the Authorization header).
    expect((await check(s3(saved.endpoint))).body).toEqual({ ok: true, rotation_blocked: false });
    expect(saved.requests.some((h) => String(h.authorization).includes(`Credential=${ACCESS}/`))).toBe(true);
  });

  it('a PATCH to another endpoint without keys saves none (the stored ones stay with their endpoint); nothing shows a key', async () => {
    const r = await root.req('PATCH', '/api/v1/settings/plane', s3(other.endpoint));
    expect(r.status, r.text).toBe(200);
    expect(r.body.evidence_storage.saved).toMatchObject({
      endpoint: other.endpoint,
      access_key_configured: false,
      secret_key_configured: false,
    });
    const text = await readFile(p.file, 'utf8');
    expect(text).not.toContain(CANARY);
    expect(JSON.stringify(other.requests)).not.toContain(CANARY);
    expect(p.t.logs.text).not.toContain(CANARY);
  });
});
