import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import { ROOT } from '../harness.js';
import { login, type Client } from '../client.js';
import { tenants, type Tenants } from '../inventory.helpers.js';
import { FOREIGN, planeWithFile } from './plane-with-file.js';

// GET/PATCH /api/v1/settings/plane (document 1 "Control-plane settings", document 4 §10): the
// fields, ETag/If-Match, the database lock, validation rules and codes, pending_restart, the log
// level applied live, audit only for a change, and plane.toml edited in place. The evidence
// storage's saved limits, its test route, s3 and rotation: evidence-storage.routes.test.ts.

describe('control-plane settings', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  let x: Tenants;
  beforeAll(async () => {
    p = await planeWithFile({}, 300);
    root = await login(p.t.plane.app, ROOT);
    x = await tenants(p.t);
  });
  afterAll(async () => {
    await p?.close();
  });

  const get = async () => {
    const r = await root.get('/api/v1/settings/plane');
    expect(r.status, r.text).toBe(200);
    return r;
  };
  const patch = (body: unknown, ifMatch?: string) =>
    root.req('PATCH', '/api/v1/settings/plane', body, ifMatch ? { 'if-match': ifMatch } : {});

  it('GET: every section, the ETag, the running and the saved values', async () => {
    const r = await get();
    expect(r.headers.etag).toMatch(/^"[\w-]{32}"$/);
    expect(r.body).toMatchObject({
      source: p.file,
      dvr_export_max_secs: 3600,
      network: {
        effective: { public_url: 'http://127.0.0.1:8080', listen: '127.0.0.1:8080', tls: { mode: 'off' } },
        saved: { public_url: 'http://127.0.0.1:8080', listen: '127.0.0.1:8080', tls: { mode: 'off' } },
        pending_restart: false,
        certificate: { mode: 'off', certificate: null, renewal_window_days: 30 },
      },
      logging: {
        minimum_level: 'info',
        effective_minimum_level: 'info',
        source: 'settings file',
        environment_override: false,
        applies_live: true,
      },
      evidence_storage: {
        effective: {
          backend: 'local',
          volume_retention: 'disabled',
          low_watermark_percent: 70,
          high_watermark_percent: 85,
          critical_watermark_percent: 95,
        },
        saved: { backend: 'local' },
        pending_restart: false,
        rotation_blocked: false,
        backend_divergence: null,
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
    expect(r.body).toMatchObject({
      dvr_export_max_secs: null,
      network: null,
      evidence_storage: null,
      logging: { minimum_level: 'debug', effective_minimum_level: 'debug', applies_live: true },
    });
    expect(r.headers.etag).not.toBe(before.headers.etag);
    const text = await readFile(p.file, 'utf8');
    const diff = text.split('\n').filter((l, i) => l !== p.text.split('\n')[i]);
    expect(diff).toEqual([
      'minimum_level = "debug"  # debug | info | warn | error; RUST_LOG or ARGUS_LOG in the environment wins',
    ]);
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
    expect((await patch({ dvr_export_max_secs: 300 }, now.headers.etag as string)).body).toEqual({
      error: 'settings_changed',
    });
    expect((await get()).body.dvr_export_max_secs).toBe(120);
  });

  it('network: saved in place, pending_restart until a restart; comments and foreign keys kept', async () => {
    const r = await patch({
      network: { public_url: 'https://cams.example.org', listen: '0.0.0.0:9443', tls: { mode: 'external' } },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.network).toMatchObject({
      saved: { public_url: 'https://cams.example.org', listen: '0.0.0.0:9443', tls: { mode: 'external' } },
      pending_restart: true,
    });
    const text = await readFile(p.file, 'utf8');
    expect(text).toContain('mode = "external"            # off | external | pem | self_signed | acme');
    expect(text).toContain('# trusted_proxies = ["127.0.0.1"]');
    expect(text).toContain(FOREIGN.trim());
    expect(
      (
        await patch({
          network: { public_url: 'http://127.0.0.1:8080', listen: '127.0.0.1:8080', tls: { mode: 'off' } },
        })
      ).body.network.pending_restart,
    ).toBe(false);
  });

  const V = { public_url: 'http://127.0.0.1:8080', listen: '127.0.0.1:8080', tls: { mode: 'off' } };
  const E = {
    backend: 'local',
    dir: '/var/lib/argus/evidence',
    volume_retention: 'disabled',
    low_watermark_percent: 70,
    high_watermark_percent: 85,
    critical_watermark_percent: 95,
  };
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
    [
      { network: { ...V, public_url: 'https://a.example', tls: { mode: 'pem' } } },
      'tls.mode pem requires cert and key',
    ],
    [
      { network: { ...V, public_url: 'https://a.example', tls: { mode: 'self_signed', hosts: ['b.example'] } } },
      "tls.hosts must include the public URL's host a.example",
    ],
    [
      {
        network: {
          ...V,
          public_url: 'https://10.0.0.1',
          tls: { mode: 'acme', hosts: ['10.0.0.1'], acme_listen: '0.0.0.0:80' },
        },
      },
      'tls.mode acme requires domain names in hosts, not IP addresses',
    ],
    [
      {
        network: {
          ...V,
          public_url: 'https://a.example',
          tls: { mode: 'acme', hosts: ['a.example'], acme_listen: V.listen },
        },
      },
      'tls.mode acme requires an acme_listen IP:port different from listen',
    ],
    [{ log_level: 'verbose' }, 'log_level must be one of debug, info, warn, error'],
    [
      { evidence_storage: { ...E, low_watermark_percent: 90 } },
      'watermarks must satisfy 1 <= low < high < critical <= 99',
    ],
    [
      { evidence_storage: { ...E, critical_watermark_percent: 100 } },
      'watermarks must satisfy 1 <= low < high < critical <= 99',
    ],
    [{ evidence_storage: { ...E, max_bytes: 1024 } }, 'evidence_storage.max_bytes must be at least 64 MiB (67108864)'],
    [{ evidence_storage: { ...E, dir: 'relative/dir' } }, 'evidence_storage.dir must be an absolute path'],
    [
      { evidence_storage: { ...E, volume_retention: 'oldest_purge_day' } },
      'destructive_volume_retention_acknowledgement_required',
    ],
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
    expect(r.body.evidence_storage).toMatchObject({
      saved: { backend: 'local', dir: ED().dir },
      pending_restart: true,
    });
    const text = await readFile(p.file, 'utf8');
    expect(text).toContain(
      'low_watermark_percent = 60        # 1 <= low < high < critical <= 99: a system.evidence_storage_pressure',
    );
    expect(text).toMatch(/max_bytes = 134217728/);
  });

  it('oldest_purge_day with the acknowledgement is saved; once saved, the same again needs none', async () => {
    const r = await patch({
      evidence_storage: { ...ED(), volume_retention: 'oldest_purge_day' },
      acknowledge_destructive_volume_retention: true,
    });
    expect(r.status, r.text).toBe(200);
    expect(await readFile(p.file, 'utf8')).toMatch(/^volume_retention = "oldest_purge_day"/m);
    expect(
      (await patch({ evidence_storage: { ...ED(), volume_retention: 'oldest_purge_day', low_watermark_percent: 50 } }))
        .status,
    ).toBe(200);
    expect((await patch({ evidence_storage: { ...ED(), volume_retention: 'disabled' } })).status).toBe(200);
    expect((await patch({ evidence_storage: { ...ED(), volume_retention: 'oldest_purge_day' } })).body).toEqual({
      error: 'destructive_volume_retention_acknowledgement_required',
    });
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
    } finally {
      await other.end();
    }
  });

  it('RUST_LOG owns the level: 409 rust_log_override, and the GET says so', async () => {
    const q = await planeWithFile({ RUST_LOG: 'warn' });
    try {
      const r = await login(q.t.plane.app, ROOT);
      expect((await r.req('PATCH', '/api/v1/settings/plane', { log_level: 'debug' })).body).toEqual({
        error: 'rust_log_override',
      });
      expect((await r.get('/api/v1/settings/plane')).body.logging).toMatchObject({
        minimum_level: 'info',
        effective_minimum_level: 'info',
        source: 'environment RUST_LOG',
        environment_override: true,
        applies_live: false,
      });
    } finally {
      await q.close();
    }
  });
});
