import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, CANARY } from '../harness.js';
import { login, type Client } from '../client.js';
import { cameraWorld, tenants } from '../inventory.helpers.js';
import { uploadAttachment } from '../fixtures.js';
import { freePort } from '../../node/helpers/node-process.js';
import { startS3rver } from '../evidence/s3rver.js';
import { planeWithFile } from './plane-with-file.js';

// The evidence storage in the control-plane settings (document 1, document 4 §10): the saved
// limits beside the running ones, POST .../evidence-storage/test, an s3 storage and its keys,
// and the rotation a move starts. Each part on a plane of its own.

describe('saved evidence limits (issue 25, finding 15)', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  beforeAll(async () => {
    p = await planeWithFile();
    root = await login(p.t.plane.app, ROOT);
  });
  afterAll(async () => {
    await p?.close();
  });

  it('the GET shows the saved watermarks, max_bytes and volume_retention; a change to them alone is pending until a restart', async () => {
    const same = {
      backend: 'local',
      dir: join(p.dir, 'evidence'),
      volume_retention: 'disabled',
      low_watermark_percent: 70,
      high_watermark_percent: 85,
      critical_watermark_percent: 95,
    };
    const limits = {
      max_bytes: null,
      volume_retention: 'disabled',
      low_watermark_percent: 70,
      high_watermark_percent: 85,
      critical_watermark_percent: 95,
    };
    expect((await root.get('/api/v1/settings/plane')).body.evidence_storage).toMatchObject({
      saved: { backend: 'local', dir: same.dir, ...limits },
      pending_restart: false,
    });
    const changed = {
      ...same,
      low_watermark_percent: 50,
      high_watermark_percent: 60,
      critical_watermark_percent: 90,
      max_bytes: 256 * 1024 * 1024,
      volume_retention: 'oldest_purge_day',
    };
    const r = await root.req('PATCH', '/api/v1/settings/plane', {
      evidence_storage: changed,
      acknowledge_destructive_volume_retention: true,
    });
    expect(r.status, r.text).toBe(200);
    const shown = (await root.get('/api/v1/settings/plane')).body.evidence_storage;
    expect(shown).toMatchObject({
      saved: {
        backend: 'local',
        dir: same.dir,
        low_watermark_percent: 50,
        high_watermark_percent: 60,
        critical_watermark_percent: 90,
        max_bytes: 256 * 1024 * 1024,
        volume_retention: 'oldest_purge_day',
      },
      effective: { dir: same.dir, ...limits },
      pending_restart: true,
    });
    // one limit at a time is enough to be pending; back to the running values, nothing is
    for (const one of [{ low_watermark_percent: 60 }, { max_bytes: 128 * 1024 * 1024 }]) {
      await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: { ...same, ...one } });
      expect(
        (await root.get('/api/v1/settings/plane')).body.evidence_storage.pending_restart,
        JSON.stringify(one),
      ).toBe(true);
    }
    await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: same });
    expect((await root.get('/api/v1/settings/plane')).body.evidence_storage).toMatchObject({
      saved: limits,
      pending_restart: false,
    });
  });
});

describe('POST /api/v1/settings/plane/evidence-storage/test', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  beforeAll(async () => {
    p = await planeWithFile();
    root = await login(p.t.plane.app, ROOT);
  });
  afterAll(async () => {
    await p?.close();
  });
  const E = {
    backend: 'local',
    volume_retention: 'disabled',
    low_watermark_percent: 70,
    high_watermark_percent: 85,
    critical_watermark_percent: 95,
  };

  it('writes, reads back and deletes a probe in a writable folder, saving nothing; 502 with the failure otherwise', async () => {
    const before = await readFile(p.file, 'utf8');
    const ok = await root.post('/api/v1/settings/plane/evidence-storage/test', {
      evidence_storage: { ...E, dir: join(p.dir, 'candidate') },
    });
    expect([ok.status, ok.body]).toEqual([200, { ok: true, rotation_blocked: false }]);
    expect(await readFile(p.file, 'utf8')).toBe(before);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(join(p.dir, 'candidate'))).toEqual([]);
    // a file where the folder should be: the check fails with what failed
    await writeFile(join(p.dir, 'occupied'), 'x');
    const bad = await root.post('/api/v1/settings/plane/evidence-storage/test', {
      evidence_storage: { ...E, dir: join(p.dir, 'occupied', 'sub') },
    });
    expect(bad.status).toBe(502);
    expect(bad.body.error).toMatch(/^create the folder failed: (ENOTDIR|EEXIST)$/);
    const invalid = await root.post('/api/v1/settings/plane/evidence-storage/test', {
      evidence_storage: { ...E, dir: 'relative' },
    });
    expect([invalid.status, invalid.body]).toEqual([400, { error: 'evidence_storage.dir must be an absolute path' }]);
  });
});

describe('settings of an s3 evidence storage', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  let s3rver: import('node:child_process').ChildProcess;
  let port: number;
  const SECRET = `s3-secret-${CANARY}`;
  const S3 = () => ({
    backend: 's3',
    endpoint: `127.0.0.1:${port}`,
    bucket: 'evidence',
    https: false,
    addressing: 'path',
    access_key: 'S3RVER',
    secret_key: 'S3RVER',
    max_bytes: 1 << 30,
    volume_retention: 'disabled',
    low_watermark_percent: 70,
    high_watermark_percent: 85,
    critical_watermark_percent: 95,
  });
  beforeAll(async () => {
    p = await planeWithFile();
    root = await login(p.t.plane.app, ROOT);
    port = await freePort();
    s3rver = await startS3rver(port, join(p.dir, 's3'));
  });
  afterAll(async () => {
    s3rver?.kill('SIGKILL');
    await p?.close();
  });

  it('the pre-check writes, reads and deletes a probe in the bucket; a metadata endpoint is refused; a dead one is 502', async () => {
    const ok = await root.post('/api/v1/settings/plane/evidence-storage/test', { evidence_storage: S3() });
    expect([ok.status, ok.body]).toEqual([200, { ok: true, rotation_blocked: false }]);
    const meta = await root.post('/api/v1/settings/plane/evidence-storage/test', {
      evidence_storage: { ...S3(), endpoint: '169.254.169.254' },
    });
    expect([meta.status, meta.body]).toEqual([
      502,
      { error: 'the endpoint resolves to a link-local or metadata address' },
    ]);
    const dead = await root.post('/api/v1/settings/plane/evidence-storage/test', {
      evidence_storage: { ...S3(), endpoint: `127.0.0.1:${await freePort()}` },
    });
    expect(dead.status).toBe(502);
    expect(dead.body.error).toMatch(/^write a probe object failed: /);
    expect(
      (
        await root.post('/api/v1/settings/plane/evidence-storage/test', {
          evidence_storage: { ...S3(), secret_key: undefined },
        })
      ).body,
    ).toEqual({ error: 'access_key and secret_key are given together' });
  });

  it('PATCH to s3: saved in place after the pre-check, keys shown only as flags, never in a reply, the audit or the logs', async () => {
    // (s3rver does not check signatures, so the canary secret passes the pre-check)
    const saved = await root.req('PATCH', '/api/v1/settings/plane', {
      evidence_storage: { ...S3(), secret_key: SECRET },
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.evidence_storage).toMatchObject({
      saved: {
        backend: 's3',
        endpoint: `127.0.0.1:${port}`,
        bucket: 'evidence',
        access_key_configured: true,
        secret_key_configured: true,
      },
      pending_restart: true,
    });
    expect(saved.text).not.toContain(CANARY);
    // omitting both keys keeps the stored ones
    const kept = await root.req('PATCH', '/api/v1/settings/plane', {
      evidence_storage: { ...S3(), access_key: undefined, secret_key: undefined, low_watermark_percent: 60 },
    });
    expect(kept.status, kept.text).toBe(200);
    expect(await readFile(p.file, 'utf8')).toContain(`secret_key = "${SECRET}"`);
    const audit = JSON.stringify((await root.get('/api/v1/audit?action=settings.update&limit=10')).body);
    expect(audit).not.toContain(CANARY);
    expect(p.t.logs.text).not.toContain(CANARY);
    expect((await root.get('/api/v1/settings/plane')).text).not.toContain(CANARY);
  });

  it('a move away from a storage that holds objects retires it ([evidence_storage_retired], rotation_blocked); a further move is 409 until it is empty', async () => {
    const x = await tenants(p.t);
    const mod = await (await cameraWorld(p.t, x)).moduleToken(x.a.admin);
    // This process still writes to its folder (the s3 change above waits for a restart): that folder now holds an object.
    await uploadAttachment(mod, 1000);
    const running = join(p.dir, 'evidence');
    const elsewhere = (dir: string) => ({
      backend: 'local',
      dir: join(p.dir, dir),
      volume_retention: 'disabled',
      low_watermark_percent: 70,
      high_watermark_percent: 85,
      critical_watermark_percent: 95,
    });
    const moved = await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: elsewhere('elsewhere') });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.evidence_storage.rotation_blocked).toBe(true);
    const text = await readFile(p.file, 'utf8');
    expect(text).toContain(`[evidence_storage_retired]\nbackend = "local"\ndir = "${running}"`);
    // The bucket's keys left with its section (the folder's section has none).
    expect(text).not.toContain(CANARY);
    expect((await root.get('/api/v1/settings/plane')).body.evidence_storage.rotation_blocked).toBe(true);
    // A further move: 409, the file untouched; the check says so without refusing.
    expect((await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: elsewhere('third') })).body).toEqual({
      error: 'event_storage_rotation_blocked',
    });
    expect(await readFile(p.file, 'utf8')).toBe(text);
    expect(
      (await root.post('/api/v1/settings/plane/evidence-storage/test', { evidence_storage: elsewhere('third') })).body,
    ).toEqual({ ok: true, rotation_blocked: true });
    // A change of the thresholds alone is no move.
    const marks = await root.req('PATCH', '/api/v1/settings/plane', {
      evidence_storage: { ...elsewhere('elsewhere'), low_watermark_percent: 60 },
    });
    expect(marks.status, marks.text).toBe(200);
    // Once the retired folder is empty (moved or deleted), moves are allowed again and the section goes.
    await rm(running, { recursive: true, force: true });
    expect((await root.get('/api/v1/settings/plane')).body.evidence_storage.rotation_blocked).toBe(false);
    const again = await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: elsewhere('third') });
    expect(again.status, again.text).toBe(200);
    expect(again.body.evidence_storage.rotation_blocked).toBe(false);
    expect(await readFile(p.file, 'utf8')).not.toContain('[evidence_storage_retired]');
  });
});
