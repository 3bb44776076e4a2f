import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { access, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freshDatabase, ROOT } from './harness.js';
import { freePort, REPO, tempDir } from '../node/helpers/node-process.js';

const run = promisify(execFile);
const INSTALL = join(REPO, 'scripts/install-plane.sh');
const UNINSTALL = join(REPO, 'scripts/uninstall-plane.sh');
const BASE = process.env.TEST_DATABASE_URL;

async function exists(p: string): Promise<boolean> {
  try {
    await access(p);
    return true;
  } catch {
    return false;
  }
}
async function mode(p: string): Promise<string> {
  return ((await stat(p)).mode & 0o777).toString(8);
}
/** Unlink first: a clone shares inodes with the template, and writing through would change it. */
async function replace(p: string, text: string): Promise<void> {
  await rm(p, { force: true });
  await writeFile(p, text);
}

/**
 * A bound for one run of install-plane.sh that never ends. An install copies the program and its
 * production dependencies (~260 MB, a cp per package): 15-30 s on a quiet machine, 66-106 s beside
 * two busy cores (load 18-21); the fresh machine's whole run, disks busy too, passed the 300 s the
 * set-up had.
 */
const INSTALL_WITHIN_MS = 600_000;

/** Copying the program takes seconds: the other tests get hard-linked clones of one installation. */
let template: string;
beforeAll(async () => {
  template = await tempDir('argus-plane-root-');
  const r = await run('sh', [INSTALL, '--root', template]);
  expect(r.stdout).toContain(`root prefix ${template}: service manager and the argus-plane user were not touched`);
}, INSTALL_WITHIN_MS);
afterAll(async () => {
  if (template) await rm(template, { recursive: true, force: true });
});
const made: string[] = [];
afterAll(async () => {
  for (const d of made) await rm(d, { recursive: true, force: true });
});
async function installed(): Promise<string> {
  const root = await tempDir('argus-plane-root-');
  made.push(root);
  await run('cp', ['-al', `${template}/.`, root]);
  return root;
}

describe('scripts/install-plane.sh in a temporary root', () => {
  it('installs the executable, program files (migrations and console too), service unit, environment file and data directory', async () => {
    const root = template;
    const bin = join(root, 'usr/bin/argus-plane');
    expect(await mode(bin)).toBe('755');
    const unit = await readFile(join(root, 'etc/systemd/system/argus-plane.service'), 'utf8');
    expect(unit).toContain('User=argus-plane');
    expect(unit).toContain('EnvironmentFile=-/etc/argus-plane/argus-plane.env');
    expect(unit).toContain('ExecStartPre=/usr/bin/argus-plane validate --config /var/lib/argus-plane/plane.toml');
    expect(unit).toContain('ExecStart=/usr/bin/argus-plane serve --config /var/lib/argus-plane/plane.toml');
    expect(unit).toContain('ReadWritePaths=/var/lib/argus-plane');
    expect(await mode(join(root, 'etc/argus-plane'))).toBe('750');
    expect(await mode(join(root, 'etc/argus-plane/argus-plane.env'))).toBe('600');
    expect(await mode(join(root, 'var/lib/argus-plane'))).toBe('750');
    expect(await mode(join(root, 'var/lib/argus-plane/plane.toml'))).toBe('600');
    const releases = await readdir(join(root, 'usr/lib/argus-plane'));
    expect(releases).toHaveLength(1);
    const release = join(root, 'usr/lib/argus-plane', releases[0]!);
    expect(await exists(join(release, 'node_modules/fastify'))).toBe(true);
    expect(await exists(join(release, 'node_modules/vitest'))).toBe(false);
    expect((await readdir(join(release, 'src/plane/db/migrations'))).length).toBeGreaterThan(0);
    const settings = join(root, 'var/lib/argus-plane/plane.toml');
    const v = await run(bin, ['validate', '--config', settings], { env: { ...process.env, DATABASE_URL: '' } });
    expect(v.stdout).toBe(`${settings}: OK (embedded database, evidence in a folder)\n`);
    // A settings problem is what keeps the unit from starting: exit 2 with the reason.
    const bad = join(root, 'bad.toml');
    await writeFile(bad, '[sweeper]\ninterval_secs = 0\n');
    const refused = await run(bin, ['validate', '--config', bad]).catch((e) => e);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('interval_secs');
  });

  it.skipIf(!BASE)(
    'the installed plane starts from its own tree on PostgreSQL: migrations applied, console and /health served',
    async () => {
      const root = await installed();
      const db = await freshDatabase();
      const port = await freePort();
      const home = join(root, 'var/lib/argus-plane');
      await replace(join(home, 'plane.toml'), `[network]\nlisten = "127.0.0.1:${port}"\n`);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: db.url!,
        ARGUS_BOOTSTRAP_LOGIN: ROOT.login,
        ARGUS_BOOTSTRAP_PASSWORD: ROOT.password,
      };
      delete env.RUST_LOG;
      delete env.ARGUS_LOG;
      // From another working directory: the program finds its files from its own place.
      const child = spawn(join(root, 'usr/bin/argus-plane'), ['serve', '--config', join(home, 'plane.toml')], {
        env,
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (b) => (out += b));
      child.stderr!.on('data', (b) => (out += b));
      try {
        const until = Date.now() + 180_000;
        while (!out.includes('argus-plane: database ready')) {
          if (child.exitCode !== null) throw new Error(`plane exited (${child.exitCode}):\n${out}`);
          if (Date.now() > until) throw new Error(`plane not ready:\n${out}`);
          await sleep(50);
        }
        const health = await fetch(`http://127.0.0.1:${port}/health`);
        expect(health.status).toBe(200);
        const login = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(ROOT),
        });
        expect(login.status).toBe(200);
        const page = await fetch(`http://127.0.0.1:${port}/`);
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toContain('text/html');
        expect(await exists(join(home, 'secret.key'))).toBe(true);
      } finally {
        const gone = new Promise((r) => child.once('exit', r));
        if (child.exitCode === null) child.kill('SIGTERM');
        await gone;
        await db.drop();
      }
    },
    240_000,
  );

  it(
    'a second install keeps the settings and the environment file and the previous executable as .prev; --stage places argus-plane.new',
    async () => {
      const root = await installed();
      const settings = join(root, 'var/lib/argus-plane/plane.toml');
      const envFile = join(root, 'etc/argus-plane/argus-plane.env');
      await replace(settings, '[network]\nlisten = "127.0.0.1:9000"\n');
      await replace(envFile, 'DATABASE_URL=postgres://argus@db.example/argus\n');
      // An older build's launcher in place: the install keeps it as .prev.
      await replace(join(root, 'usr/bin/argus-plane'), '#!/bin/sh\n# argus-plane older\n');
      await run('sh', [INSTALL, '--root', root]);
      expect(await readFile(settings, 'utf8')).toBe('[network]\nlisten = "127.0.0.1:9000"\n');
      expect(await readFile(envFile, 'utf8')).toBe('DATABASE_URL=postgres://argus@db.example/argus\n');
      expect(await readFile(join(root, 'usr/bin/argus-plane.prev'), 'utf8')).toContain('older');
      const before = await readFile(join(root, 'usr/bin/argus-plane'), 'utf8');
      await run('sh', [INSTALL, '--root', root, '--stage']);
      expect(await readFile(join(root, 'usr/bin/argus-plane'), 'utf8')).toBe(before);
      expect(await mode(join(root, 'usr/bin/argus-plane.new'))).toBe('755');
      const v = await run(join(root, 'usr/bin/argus-plane.new'), ['validate', '--config', settings], {
        env: { ...process.env, DATABASE_URL: '' },
      });
      expect(v.stdout).toBe(`${settings}: OK (embedded database, evidence in a folder)\n`);
    },
    // two installs
    2 * INSTALL_WITHIN_MS,
  );
});

describe('scripts/uninstall-plane.sh: the removal table', () => {
  async function prepared(): Promise<{ root: string; outside: string }> {
    const root = await installed();
    await writeFile(join(root, 'usr/bin/argus-plane.prev'), '#!/bin/sh\n', { mode: 0o755 });
    const outside = join(root, 'srv/evidence');
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'object'), 'x');
    await writeFile(join(root, 'var/lib/argus-plane/secret.key'), 'k', { mode: 0o600 });
    await replace(
      join(root, 'var/lib/argus-plane/plane.toml'),
      '[database]\nurl = "postgres://argus:pw@db1.example:5432/argus"\n\n[evidence_storage]\nbackend = "local"\ndir = "/srv/evidence"  # its own volume\n',
    );
    return { root, outside };
  }
  const removedAlways = [
    'etc/systemd/system/argus-plane.service',
    'usr/bin/argus-plane',
    'usr/bin/argus-plane.prev',
    'usr/lib/argus-plane',
  ];

  it('without --purge: service, unit and executables go; environment file, settings, secret.key and evidence stay', async () => {
    const { root, outside } = await prepared();
    const r = await run('sh', [UNINSTALL, '--root', root]);
    for (const p of removedAlways) expect(await exists(join(root, p)), p).toBe(false);
    expect(await exists(join(root, 'etc/argus-plane/argus-plane.env'))).toBe(true);
    expect(await exists(join(root, 'var/lib/argus-plane/secret.key'))).toBe(true);
    expect(await exists(join(outside, 'object'))).toBe(true);
    expect(r.stdout).toContain(
      'kept: evidence folder /srv/evidence is outside the data directory; remove it by hand if wanted',
    );
    // The database's address without its password.
    expect(r.stdout).toContain('kept: the PostgreSQL database at db1.example:5432;');
    expect(r.stdout).not.toContain('pw');
  });

  it('--purge: the environment file and the data directory go too; evidence elsewhere and the database stay', async () => {
    const { root, outside } = await prepared();
    const r = await run('sh', [UNINSTALL, '--root', root, '--purge']);
    for (const p of removedAlways) expect(await exists(join(root, p)), p).toBe(false);
    expect(await exists(join(root, 'etc/argus-plane'))).toBe(false);
    expect(await exists(join(root, 'var/lib/argus-plane'))).toBe(false);
    expect(await exists(join(outside, 'object'))).toBe(true);
    expect(r.stdout).toContain('kept: evidence folder /srv/evidence');
    expect(r.stdout).toContain('a copy of this secret.key');
  });

  it('evidence on S3: the bucket is named and kept', async () => {
    const root = await installed();
    await replace(
      join(root, 'var/lib/argus-plane/plane.toml'),
      '[evidence_storage]\nbackend = "s3"\nendpoint = "s3.example:9000"\nbucket = "argus-evidence"\n',
    );
    const r = await run('sh', [UNINSTALL, '--root', root, '--purge']);
    expect(r.stdout).toContain('kept: evidence in bucket argus-evidence at s3.example:9000');
  });
});
