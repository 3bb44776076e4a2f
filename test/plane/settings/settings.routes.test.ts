import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import { ROOT, CANARY } from '../harness.js';
import { login, type Client } from '../client.js';
import { cameraWorld, tenants, type Tenants } from '../inventory.helpers.js';
import { uploadAttachment } from '../fixtures.js';
import { freePort } from '../../node/helpers/node-process.js';
import { startS3rver } from '../evidence/s3rver.js';
import { FOREIGN, planeWithFile } from './plane-with-file.js';

// GET/PATCH /api/v1/settings/plane (document 1 "Control-plane settings", document 4 §10): the
// fields, ETag/If-Match, the database lock, validation rules and codes, pending_restart, the log
// level applied live, audit only for a change, and plane.toml edited in place.

describe('control-plane settings', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  let x: Tenants;
  beforeAll(async () => {
    p = await planeWithFile({}, 300);
    root = await login(p.t.plane.app, ROOT);
    x = await tenants(p.t);
  });
  afterAll(async () => { await p?.close(); });

  const get = async () => {
    const r = await root.get('/api/v1/settings/plane');
    expect(r.status, r.text).toBe(200);
    return r;
  };
  const patch = (body: unknown, ifMatch?: string) => root.req('PATCH', '/api/v1/settings/plane', body, ifMatch ? { 'if-match': ifMatch } : {});

  it('GET: every section, the ETag, the running and the saved values', async () => {
    const r = await get();
    expect(r.headers.etag).toMatch(/^"[\w-]{32}"$/);
    expect(r.body).toMatchObject({
      source: p.file, dvr_export_max_secs: 3600,
      network: {
        effective: { public_url: 'http://127.0.0.1:8080', listen: '127.0.0.1:8080', tls: { mode: 'off' } },
        saved: { public_url: 'http://127.0.0.1:8080', listen: '127.0.0.1:8080', tls: { mode: 'off' } },
        pending_restart: false, certificate: { mode: 'off', certificate: null, renewal_window_days: 30 },
      },
      logging: { minimum_level: 'info', effective_minimum_level: 'info', source: 'settings file', environment_override: false, applies_live: true },
      evidence_storage: {
        effective: { backend: 'local', volume_retention: 'disabled', low_watermark_percent: 70, high_watermark_percent: 85, critical_watermark_percent: 95 },
        saved: { backend: 'local' }, pending_restart: false, rotation_blocked: false, backend_divergence: null,
        stats: { state: 'ok', logical_bytes: 0, attachment_count: 0 },
      },
    });
    expect(r.body.evidence_storage.stats.capacity_bytes).toBeGreaterThan(0);
    expect(r.body.evidence_storage.stats.used_percent).toBeGreaterThan(0);
  });

  it('PATCH log_level: one line of the file changes, it applies live, audited; the same again changes nothing', async () => {
    const before = await get();
    const r = await patch({ log_level: 'debug' }, before.headers.etag as string);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ dvr_export_max_secs: null, network: null, evidence_storage: null, logging: { minimum_level: 'debug', effective_minimum_level: 'debug', applies_live: true } });
    expect(r.headers.etag).not.toBe(before.headers.etag);
    const text = await readFile(p.file, 'utf8');
    const diff = text.split('\n').filter((l, i) => l !== p.text.split('\n')[i]);
    expect(diff).toEqual(['minimum_level = "debug"  # debug | info | warn | error; RUST_LOG or ARGUS_LOG in the environment wins']);
    expect(text.endsWith(FOREIGN)).toBe(true);
    expect(p.t.plane.services.logs.level()).toBe('debug');
    const audit = (await root.get('/api/v1/audit?action=settings.update&limit=5')).body.rows;
    expect(audit).toHaveLength(1);
    expect(audit[0].params).toMatchObject({ sections: ['log_level'], log_level: 'debug' });
    // no change: 200, no write, no audit
    const same = await patch({ log_level: 'debug' });
    expect(same.status).toBe(200);
    expect(await readFile(p.file, 'utf8')).toBe(text);
    expect((await root.get('/api/v1/audit?action=settings.update&limit=5')).body.rows).toHaveLength(1);
    expect((await patch({ log_level: 'info' })).status).toBe(200);
  });

  it('If-Match: a file changed since the GET (by an edit or by hand) is 409 settings_changed, nothing written', async () => {
    const etag = (await get()).headers.etag as string;
    expect((await patch({ dvr_export_max_secs: 120 }, etag)).status).toBe(200);
    expect((await patch({ dvr_export_max_secs: 240 }, etag)).body).toEqual({ error: 'settings_changed' });
    const now = await get();
    await writeFile(p.file, (await readFile(p.file, 'utf8')) + '# a hand edit\n');
    expect((await patch({ dvr_export_max_secs: 300 }, now.headers.etag as string)).body).toEqual({ error: 'settings_changed' });
    expect((await get()).body.dvr_export_max_secs).toBe(120);
  });

  it('network: saved in place, pending_restart until a restart; comments and foreign keys kept', async () => {
    const r = await patch({ network: { public_url: 'https://cams.example.org', listen: '0.0.0.0:9443', tls: { mode: 'external' } } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.network).toMatchObject({ saved: { public_url: 'https://cams.example.org', listen: '0.0.0.0:9443', tls: { mode: 'external' } }, pending_restart: true });
    const text = await readFile(p.file, 'utf8');
    expect(text).toContain('mode = "external"            # off | external | pem | self_signed | acme');
    expect(text).toContain('# trusted_proxies = ["127.0.0.1"]');
    expect(text).toContain(FOREIGN.trim());
    expect((await patch({ network: { public_url: 'http://127.0.0.1:8080', listen: '127.0.0.1:8080', tls: { mode: 'off' } } })).body.network.pending_restart).toBe(false);
  });

  const V = { public_url: 'http://127.0.0.1:8080', listen: '127.0.0.1:8080', tls: { mode: 'off' } };
  const E = { backend: 'local', dir: '/var/lib/argus/evidence', volume_retention: 'disabled', low_watermark_percent: 70, high_watermark_percent: 85, critical_watermark_percent: 95 };
  it.each([
    [{}, 'no_settings_supplied'],
    [{ log_level: null, network: null }, 'no_settings_supplied'],
    [{ dvr_export_max_secs: 59 }, 'dvr_export_max_secs_out_of_range'],
    [{ dvr_export_max_secs: 86401 }, 'dvr_export_max_secs_out_of_range'],
    [{ network: { ...V, public_url: 'not a url' } }, 'invalid_public_url'],
    [{ network: { public_url: V.public_url, listen: V.listen } }, 'network needs public_url, listen and tls together'],
    [{ network: { ...V, listen: 'localhost:80' } }, 'listen must be IP:port'],
    [{ network: { ...V, public_url: 'https://a.example' } }, 'with tls.mode off the public URL must be http://'],
    [{ network: { ...V, tls: { mode: 'external' } } }, 'with tls.mode external the public URL must be https://'],
    [{ network: { ...V, public_url: 'https://a.example', tls: { mode: 'pem' } } }, 'tls.mode pem requires cert and key'],
    [{ network: { ...V, public_url: 'https://a.example', tls: { mode: 'self_signed', hosts: ['b.example'] } } }, "tls.hosts must include the public URL's host a.example"],
    [{ network: { ...V, public_url: 'https://10.0.0.1', tls: { mode: 'acme', hosts: ['10.0.0.1'], acme_listen: '0.0.0.0:80' } } }, 'tls.mode acme requires domain names in hosts, not IP addresses'],
    [{ network: { ...V, public_url: 'https://a.example', tls: { mode: 'acme', hosts: ['a.example'], acme_listen: V.listen } } }, 'tls.mode acme requires an acme_listen IP:port different from listen'],
    [{ log_level: 'verbose' }, 'log_level must be one of debug, info, warn, error'],
    [{ evidence_storage: { ...E, low_watermark_percent: 90 } }, 'watermarks must satisfy 1 <= low < high < critical <= 99'],
    [{ evidence_storage: { ...E, critical_watermark_percent: 100 } }, 'watermarks must satisfy 1 <= low < high < critical <= 99'],
    [{ evidence_storage: { ...E, max_bytes: 1024 } }, 'evidence_storage.max_bytes must be at least 64 MiB (67108864)'],
    [{ evidence_storage: { ...E, dir: 'relative/dir' } }, 'evidence_storage.dir must be an absolute path'],
    [{ evidence_storage: { ...E, volume_retention: 'oldest_purge_day' } }, 'destructive_volume_retention_acknowledgement_required'],
  ])('400 for %j: %s', async (body, error) => {
    const before = await readFile(p.file, 'utf8');
    const r = await patch(body);
    expect([r.status, r.body]).toEqual([400, { error }]);
    expect(await readFile(p.file, 'utf8')).toBe(before);
  });

  // A folder of this test's own: the pre-check makes only the folder it names (issue 25), never /var/lib/argus.
  const ED = () => ({ ...E, dir: join(p.dir, 'saved-evidence') });
  it('evidence storage (local): watermarks saved; pending_restart for another dir', async () => {
    const r = await patch({ evidence_storage: { ...ED(), low_watermark_percent: 60, max_bytes: 128 * 1024 * 1024 } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.evidence_storage).toMatchObject({ saved: { backend: 'local', dir: ED().dir }, pending_restart: true });
    const text = await readFile(p.file, 'utf8');
    expect(text).toContain('low_watermark_percent = 60        # 1 <= low < high < critical <= 99: a system.evidence_storage_pressure');
    expect(text).toMatch(/max_bytes = 134217728/);
  });

  it('oldest_purge_day with the acknowledgement is saved; once saved, the same again needs none', async () => {
    const r = await patch({ evidence_storage: { ...ED(), volume_retention: 'oldest_purge_day' }, acknowledge_destructive_volume_retention: true });
    expect(r.status, r.text).toBe(200);
    expect(await readFile(p.file, 'utf8')).toMatch(/^volume_retention = "oldest_purge_day"/m);
    expect((await patch({ evidence_storage: { ...ED(), volume_retention: 'oldest_purge_day', low_watermark_percent: 50 } })).status).toBe(200);
    expect((await patch({ evidence_storage: { ...ED(), volume_retention: 'disabled' } })).status).toBe(200);
    expect((await patch({ evidence_storage: { ...ED(), volume_retention: 'oldest_purge_day' } })).body).toEqual({ error: 'destructive_volume_retention_acknowledgement_required' });
  });

  it('superadmins only; 409 settings_busy when another edit holds the lock past the wait', async () => {
    expect((await x.a.admin.get('/api/v1/settings/plane')).status).toBe(403);
    expect((await x.a.admin.req('PATCH', '/api/v1/settings/plane', { log_level: 'warn' })).status).toBe(403);
    if (!p.t.db.url) return; // the embedded database has one connection: edits queue on it instead
    const other = postgres(p.t.db.url, { max: 1, onnotice: () => {} });
    try {
      await other`select pg_advisory_lock(${0x5e771})`;
      const r = await patch({ dvr_export_max_secs: 600 });
      expect([r.status, r.body]).toEqual([409, { error: 'settings_busy' }]);
      await other`select pg_advisory_unlock(${0x5e771})`;
      expect((await patch({ dvr_export_max_secs: 600 })).status).toBe(200);
    } finally { await other.end(); }
  });

  it('RUST_LOG owns the level: 409 rust_log_override, and the GET says so', async () => {
    const q = await planeWithFile({ RUST_LOG: 'warn' });
    try {
      const r = await login(q.t.plane.app, ROOT);
      expect((await r.req('PATCH', '/api/v1/settings/plane', { log_level: 'debug' })).body).toEqual({ error: 'rust_log_override' });
      expect((await r.get('/api/v1/settings/plane')).body.logging).toMatchObject({ minimum_level: 'info', effective_minimum_level: 'info', source: 'environment RUST_LOG', environment_override: true, applies_live: false });
    } finally { await q.close(); }
  });
});

describe('saved evidence limits (issue 25, finding 15)', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  beforeAll(async () => { p = await planeWithFile(); root = await login(p.t.plane.app, ROOT); });
  afterAll(async () => { await p?.close(); });

  it('the GET shows the saved watermarks, max_bytes and volume_retention; a change to them alone is pending until a restart', async () => {
    const same = { backend: 'local', dir: join(p.dir, 'evidence'), volume_retention: 'disabled', low_watermark_percent: 70, high_watermark_percent: 85, critical_watermark_percent: 95 };
    const limits = { max_bytes: null, volume_retention: 'disabled', low_watermark_percent: 70, high_watermark_percent: 85, critical_watermark_percent: 95 };
    expect((await root.get('/api/v1/settings/plane')).body.evidence_storage).toMatchObject({ saved: { backend: 'local', dir: same.dir, ...limits }, pending_restart: false });
    const changed = { ...same, low_watermark_percent: 50, high_watermark_percent: 60, critical_watermark_percent: 90, max_bytes: 256 * 1024 * 1024, volume_retention: 'oldest_purge_day' };
    const r = await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: changed, acknowledge_destructive_volume_retention: true });
    expect(r.status, r.text).toBe(200);
    const shown = (await root.get('/api/v1/settings/plane')).body.evidence_storage;
    expect(shown).toMatchObject({
      saved: { backend: 'local', dir: same.dir, low_watermark_percent: 50, high_watermark_percent: 60, critical_watermark_percent: 90, max_bytes: 256 * 1024 * 1024, volume_retention: 'oldest_purge_day' },
      effective: { dir: same.dir, ...limits }, pending_restart: true,
    });
    // one limit at a time is enough to be pending; back to the running values, nothing is
    for (const one of [{ low_watermark_percent: 60 }, { max_bytes: 128 * 1024 * 1024 }]) {
      await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: { ...same, ...one } });
      expect((await root.get('/api/v1/settings/plane')).body.evidence_storage.pending_restart, JSON.stringify(one)).toBe(true);
    }
    await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: same });
    expect((await root.get('/api/v1/settings/plane')).body.evidence_storage).toMatchObject({ saved: limits, pending_restart: false });
  });
});

describe('POST /api/v1/settings/plane/evidence-storage/test', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  beforeAll(async () => { p = await planeWithFile(); root = await login(p.t.plane.app, ROOT); });
  afterAll(async () => { await p?.close(); });
  const E = { backend: 'local', volume_retention: 'disabled', low_watermark_percent: 70, high_watermark_percent: 85, critical_watermark_percent: 95 };

  it('writes, reads back and deletes a probe in a writable folder, saving nothing; 502 with the failure otherwise', async () => {
    const before = await readFile(p.file, 'utf8');
    const ok = await root.post('/api/v1/settings/plane/evidence-storage/test', { evidence_storage: { ...E, dir: join(p.dir, 'candidate') } });
    expect([ok.status, ok.body]).toEqual([200, { ok: true, rotation_blocked: false }]);
    expect(await readFile(p.file, 'utf8')).toBe(before);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(join(p.dir, 'candidate'))).toEqual([]);
    // a file where the folder should be: the check fails with what failed
    await writeFile(join(p.dir, 'occupied'), 'x');
    const bad = await root.post('/api/v1/settings/plane/evidence-storage/test', { evidence_storage: { ...E, dir: join(p.dir, 'occupied', 'sub') } });
    expect(bad.status).toBe(502);
    expect(bad.body.error).toMatch(/^create the folder failed: (ENOTDIR|EEXIST)$/);
    const invalid = await root.post('/api/v1/settings/plane/evidence-storage/test', { evidence_storage: { ...E, dir: 'relative' } });
    expect([invalid.status, invalid.body]).toEqual([400, { error: 'evidence_storage.dir must be an absolute path' }]);
  });
});

describe('settings of an s3 evidence storage', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  let s3rver: import('node:child_process').ChildProcess;
  let port: number;
  const SECRET = `s3-secret-${CANARY}`;
  const S3 = () => ({ backend: 's3', endpoint: `127.0.0.1:${port}`, bucket: 'evidence', https: false, addressing: 'path', access_key: 'S3RVER', secret_key: 'S3RVER',
    max_bytes: 1 << 30, volume_retention: 'disabled', low_watermark_percent: 70, high_watermark_percent: 85, critical_watermark_percent: 95 });
  beforeAll(async () => {
    p = await planeWithFile();
    root = await login(p.t.plane.app, ROOT);
    port = await freePort();
    s3rver = await startS3rver(port, join(p.dir, 's3'));
  });
  afterAll(async () => { s3rver?.kill('SIGKILL'); await p?.close(); });

  it('the pre-check writes, reads and deletes a probe in the bucket; a metadata endpoint is refused; a dead one is 502', async () => {
    const ok = await root.post('/api/v1/settings/plane/evidence-storage/test', { evidence_storage: S3() });
    expect([ok.status, ok.body]).toEqual([200, { ok: true, rotation_blocked: false }]);
    const meta = await root.post('/api/v1/settings/plane/evidence-storage/test', { evidence_storage: { ...S3(), endpoint: '169.254.169.254' } });
    expect([meta.status, meta.body]).toEqual([502, { error: 'the endpoint resolves to a link-local or metadata address' }]);
    const dead = await root.post('/api/v1/settings/plane/evidence-storage/test', { evidence_storage: { ...S3(), endpoint: `127.0.0.1:${await freePort()}` } });
    expect(dead.status).toBe(502);
    expect(dead.body.error).toMatch(/^write a probe object failed: /);
    expect((await root.post('/api/v1/settings/plane/evidence-storage/test', { evidence_storage: { ...S3(), secret_key: undefined } })).body).toEqual({ error: 'access_key and secret_key are given together' });
  });

  it('PATCH to s3: saved in place after the pre-check, keys shown only as flags, never in a reply, the audit or the logs', async () => {
    // (s3rver does not check signatures, so the canary secret passes the pre-check)
    const saved = await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: { ...S3(), secret_key: SECRET } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.evidence_storage).toMatchObject({ saved: { backend: 's3', endpoint: `127.0.0.1:${port}`, bucket: 'evidence', access_key_configured: true, secret_key_configured: true }, pending_restart: true });
    expect(saved.text).not.toContain(CANARY);
    // omitting both keys keeps the stored ones
    const kept = await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: { ...S3(), access_key: undefined, secret_key: undefined, low_watermark_percent: 60 } });
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
    const elsewhere = (dir: string) => ({ backend: 'local', dir: join(p.dir, dir), volume_retention: 'disabled', low_watermark_percent: 70, high_watermark_percent: 85, critical_watermark_percent: 95 });
    const moved = await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: elsewhere('elsewhere') });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.evidence_storage.rotation_blocked).toBe(true);
    const text = await readFile(p.file, 'utf8');
    expect(text).toContain(`[evidence_storage_retired]\nbackend = "local"\ndir = "${running}"`);
    // The bucket's keys left with its section (the folder's section has none).
    expect(text).not.toContain(CANARY);
    expect((await root.get('/api/v1/settings/plane')).body.evidence_storage.rotation_blocked).toBe(true);
    // A further move: 409, the file untouched; the check says so without refusing.
    expect((await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: elsewhere('third') })).body).toEqual({ error: 'event_storage_rotation_blocked' });
    expect(await readFile(p.file, 'utf8')).toBe(text);
    expect((await root.post('/api/v1/settings/plane/evidence-storage/test', { evidence_storage: elsewhere('third') })).body).toEqual({ ok: true, rotation_blocked: true });
    // A change of the thresholds alone is no move.
    const marks = await root.req('PATCH', '/api/v1/settings/plane', { evidence_storage: { ...elsewhere('elsewhere'), low_watermark_percent: 60 } });
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
