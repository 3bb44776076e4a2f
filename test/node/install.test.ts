import { beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { access, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO, tempDir } from './helpers/node-process.js';

const run = promisify(execFile);
const INSTALL = join(REPO, 'scripts/install.sh');
const UNINSTALL = join(REPO, 'scripts/uninstall.sh');

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

async function install(): Promise<string> {
  const root = await tempDir('argus-root-');
  const r = await run('sh', [INSTALL, '--root', root]);
  expect(r.stdout).toContain(`root prefix ${root}: service manager, sysctl and the argus-node user were not touched`);
  return root;
}

/** Copying the program takes seconds: removal tests get hard-linked clones of one installation. */
let template: string;
beforeAll(async () => {
  template = await install();
}, 300_000);
async function installed(): Promise<string> {
  const root = await tempDir('argus-root-');
  await run('cp', ['-al', `${template}/.`, root]);
  return root;
}

describe('scripts/install.sh in a temporary root', () => {
  it('installs the executable, program files, service unit, kernel-settings file and directories', async () => {
    const root = template;
    const bin = join(root, 'usr/bin/argus-node');
    expect(await mode(bin)).toBe('755');
    const unit = await readFile(join(root, 'etc/systemd/system/argus-node.service'), 'utf8');
    expect(unit).toContain('ExecStart=/usr/bin/argus-node run /etc/argus-node/argus-node.conf');
    expect(unit).toContain('ExecStartPre=/usr/bin/argus-node --validate /etc/argus-node/argus-node.conf');
    expect(unit).toContain('ExecReload=/bin/kill -HUP $MAINPID');
    expect(unit).toMatch(/TimeoutStopSec=(\d+)/);
    expect(Number(/TimeoutStopSec=(\d+)/.exec(unit)![1])).toBeGreaterThan(5);
    expect(await readFile(join(root, 'etc/sysctl.d/60-argus-node.conf'), 'utf8')).toContain('net.core.rmem_max');
    expect(await mode(join(root, 'etc/argus-node'))).toBe('750');
    expect(await mode(join(root, 'var/lib/argus-node'))).toBe('750');
    expect(await mode(join(root, 'etc/argus-node/argus-node.conf'))).toBe('600');
    const releases = await readdir(join(root, 'usr/lib/argus-node'));
    expect(releases).toHaveLength(1);
    expect(await exists(join(root, 'usr/lib/argus-node', releases[0], 'node_modules/fastify'))).toBe(true);
    // The installed executable runs from its own place and accepts the configuration it was given.
    const v = await run(bin, ['--validate', join(root, 'etc/argus-node/argus-node.conf')]);
    expect(v.stdout).toBe(`${join(root, 'etc/argus-node/argus-node.conf')}: OK (0 streams)\n`);
  });

  it('a second install keeps the configuration; --stage places argus-node.new beside the working one', async () => {
    const root = await installed();
    const conf = join(root, 'etc/argus-node/argus-node.conf');
    await rm(conf);
    await writeFile(conf, 'http 9000;\n');
    await run('sh', [INSTALL, '--root', root]);
    expect(await readFile(conf, 'utf8')).toBe('http 9000;\n');
    const before = await readFile(join(root, 'usr/bin/argus-node'), 'utf8');
    await run('sh', [INSTALL, '--root', root, '--stage']);
    expect(await readFile(join(root, 'usr/bin/argus-node'), 'utf8')).toBe(before);
    expect(await mode(join(root, 'usr/bin/argus-node.new'))).toBe('755');
    const v = await run(join(root, 'usr/bin/argus-node.new'), ['--validate', conf]);
    expect(v.stdout).toBe(`${conf}: OK (0 streams)\n`);
    // Two installs copy the program twice, the npm-shipped ffmpeg fallback included (about 70 MB):
    // the bound is for a hang; a loaded CI machine took over 120 s.
  }, 400_000);
});

describe('scripts/uninstall.sh: the removal table', () => {
  async function prepared(): Promise<{ root: string; outside: string; inside: string }> {
    const root = await installed();
    await writeFile(join(root, 'usr/bin/argus-node.prev'), '#!/bin/sh\n', { mode: 0o755 });
    const outside = join(root, 'srv/archive');
    const inside = join(root, 'var/lib/argus-node/archive');
    await mkdir(outside, { recursive: true });
    await mkdir(inside, { recursive: true });
    await writeFile(join(outside, 'segment.ts'), 'x');
    await writeFile(join(inside, 'segment.ts'), 'x');
    await writeFile(join(root, 'etc/argus-node/license.json'), '{}');
    // Unlink first: the clone shares inodes with the template, and writing through would change it.
    await rm(join(root, 'etc/argus-node/argus-node.conf'));
    await writeFile(
      join(root, 'etc/argus-node/argus-node.conf'),
      'data_dir /var/lib/argus-node;\nstorage main /var/lib/argus-node/archive;\nstorage other "/srv/archive" max_bytes 1000;\n',
    );
    return { root, outside, inside };
  }

  const removedAlways = [
    'etc/systemd/system/argus-node.service',
    'usr/bin/argus-node',
    'usr/bin/argus-node.prev',
    'usr/lib/argus-node',
    'etc/sysctl.d/60-argus-node.conf',
  ];

  it('without --purge: service, unit, executables and kernel settings go; configuration, licence, data and storages stay', async () => {
    const { root, outside, inside } = await prepared();
    const r = await run('sh', [UNINSTALL, '--root', root]);
    for (const p of removedAlways) expect(await exists(join(root, p)), p).toBe(false);
    expect(await exists(join(root, 'etc/argus-node/argus-node.conf'))).toBe(true);
    expect(await exists(join(root, 'etc/argus-node/license.json'))).toBe(true);
    expect(await exists(join(inside, 'segment.ts'))).toBe(true);
    expect(await exists(join(outside, 'segment.ts'))).toBe(true);
    expect(r.stdout).toContain(
      'kept: storage other at /srv/archive is outside the data directory; remove it by hand if wanted',
    );
    expect(r.stdout).toContain('note: kernel settings applied from the settings file stay in effect until reboot');
  });

  it('--purge: configuration, licence and data directory go too; storages on other volumes stay', async () => {
    const { root, outside } = await prepared();
    const r = await run('sh', [UNINSTALL, '--root', root, '--purge']);
    for (const p of removedAlways) expect(await exists(join(root, p)), p).toBe(false);
    expect(await exists(join(root, 'etc/argus-node'))).toBe(false);
    expect(await exists(join(root, 'var/lib/argus-node'))).toBe(false);
    expect(await exists(join(outside, 'segment.ts'))).toBe(true);
    expect(r.stdout).toContain(
      'storage main (/var/lib/argus-node/archive) is inside the data directory: removed with it',
    );
    expect(r.stdout).toContain(
      'kept: storage other at /srv/archive is outside the data directory; remove it by hand if wanted',
    );
  });
});
