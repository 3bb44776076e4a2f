import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ManualClock, ROOT, freshDatabase, startPlane } from '../harness.js';
import { login, type Client } from '../client.js';
import { TlsService } from '../../../src/plane/tls/tls.service.js';
import { selfSigned } from '../../../src/plane/tls/certificate.js';
import type { TlsOptions } from '../../../src/plane/tls/tls.types.js';
import { ConfigError, parsePlaneConfig } from '../../../src/plane/config/config.js';
import { planeWithFile } from '../settings/plane-with-file.js';

// Issue 25, finding 9: a plane started with an unreadable or non-PEM certificate logged an
// uncaught exception and exited 0. Such a pair is now a configuration problem (ConfigError, which
// `argus-plane serve` answers with exit 2, as for plane.toml), paths are absolute, and the files
// are read when the settings are saved.

let dir: string;
let good: { cert: string; key: string };
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-pem-'));
  const made = await selfSigned(['localhost'], Date.now());
  good = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
  await writeFile(good.cert, made.cert);
  await writeFile(good.key, made.key);
  await writeFile(join(dir, 'junk.pem'), 'not a certificate\n');
  await writeFile(join(dir, 'locked.pem'), made.cert);
  await chmod(join(dir, 'locked.pem'), 0o000);
  await writeFile(join(dir, 'other-key.pem'), (await selfSigned(['localhost'], Date.now())).key);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const opts = (cert: string, key: string): TlsOptions => ({
  mode: 'pem',
  cert,
  key,
  hosts: [],
  storeDir: '',
  acmeContact: null,
  acmeListen: null,
  acmeDirectoryUrl: 'https://acme-v02.api.letsencrypt.org/directory',
  acmeCaFile: null,
});
const cases = () =>
  [
    [join(dir, 'missing.pem'), good.key, /^\[network\.tls\] tls\.cert .*missing\.pem cannot be read \(ENOENT\)$/],
    [join(dir, 'junk.pem'), good.key, /^\[network\.tls\] tls\.cert .*junk\.pem is not PEM$/],
    [good.cert, join(dir, 'junk.pem'), /^\[network\.tls\] tls\.key .*junk\.pem is not PEM$/],
    [good.cert, join(dir, 'other-key.pem'), /^\[network\.tls\] tls\.cert and tls\.key do not make a usable pair/],
  ] as const;

describe('pem files at start', () => {
  it('an unreadable, non-PEM or mismatched pair is a ConfigError (exit 2), never an uncaught exception', async () => {
    for (const [cert, key, problem] of cases()) {
      const err = await new TlsService(opts(cert, key), new ManualClock(Date.now()), pino({ level: 'silent' }))
        .load()
        .catch((e: unknown) => e);
      expect(err, cert).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([expect.stringMatching(problem)]);
    }
    // the whole start (buildApp, as `argus-plane serve` calls it) rejects with it
    const db = await freshDatabase();
    try {
      await expect(
        startPlane({ db, config: { publicUrl: 'https://localhost:8443', tls: opts(join(dir, 'junk.pem'), good.key) } }),
      ).rejects.toBeInstanceOf(ConfigError);
    } finally {
      await db.drop();
    }
  });

  it('a file the process may not read (unless root) and a good pair', async () => {
    const locked = await new TlsService(
      opts(join(dir, 'locked.pem'), good.key),
      new ManualClock(Date.now()),
      pino({ level: 'silent' }),
    )
      .load()
      .catch((e: unknown) => e);
    if (process.getuid?.() !== 0)
      expect((locked as ConfigError).problems).toEqual([expect.stringContaining('cannot be read (EACCES)')]);
    expect(
      await new TlsService(opts(good.cert, good.key), new ManualClock(Date.now()), pino({ level: 'silent' })).load(),
    ).toMatchObject({ cert: expect.stringContaining('BEGIN CERTIFICATE') });
  });

  it('plane.toml: cert and key must be absolute paths', () => {
    const text =
      '[network]\npublic_url = "https://a.example"\n[network.tls]\nmode = "pem"\ncert = "certs/cert.pem"\nkey = "key.pem"\n';
    expect(() => parsePlaneConfig({ text, configFile: null, env: {}, dataDir: '/srv/argus' })).toThrow(ConfigError);
    try {
      parsePlaneConfig({ text, configFile: null, env: {}, dataDir: '/srv/argus' });
    } catch (e) {
      expect((e as ConfigError).problems).toEqual([
        '[network.tls] cert must be an absolute path',
        '[network.tls] key must be an absolute path',
      ]);
    }
  });
});

describe('pem files when saved (PATCH /api/v1/settings/plane)', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  beforeAll(async () => {
    p = await planeWithFile();
    root = await login(p.t.plane.app, ROOT);
  });
  afterAll(async () => {
    await p?.close();
  });
  const pem = (cert: string, key: string) => ({
    network: { public_url: 'https://a.example', listen: '127.0.0.1:8443', tls: { mode: 'pem', cert, key } },
  });

  it('400 with the problem; nothing written; a good pair is saved', async () => {
    const { readFile } = await import('node:fs/promises');
    const before = await readFile(p.file, 'utf8');
    for (const [cert, key, problem] of cases()) {
      const r = await root.req('PATCH', '/api/v1/settings/plane', pem(cert, key));
      expect(r.status, r.text).toBe(400);
      expect(r.body.error).toMatch(new RegExp(problem.source.replace('^\\[network\\.tls\\] ', '^')));
    }
    expect((await root.req('PATCH', '/api/v1/settings/plane', pem('cert.pem', 'key.pem'))).body).toEqual({
      error: 'tls.cert and tls.key must be absolute paths',
    });
    expect(await readFile(p.file, 'utf8')).toBe(before);
    const ok = await root.req('PATCH', '/api/v1/settings/plane', pem(good.cert, good.key));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.network).toMatchObject({ saved: { tls: { mode: 'pem' } }, pending_restart: true });
  });
});
