import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEvidenceStorage } from '../../../src/plane/evidence/evidence.storage.js';
import {
  EVIDENCE_MARKER,
  EvidenceFolderRefused,
  inspectEvidenceFolder,
  isEvidenceKey,
} from '../../../src/plane/evidence/evidence-folder.js';
import { claimEvidenceAtStart } from '../../../src/plane/evidence/evidence-start.js';
import { evidenceMigrateCommand } from '../../../src/plane/evidence/migrate.cli.js';
import { ConfigError, parsePlaneConfig } from '../../../src/plane/config/config.js';

// Issue 25, finding 2: `argus-plane evidence migrate` moved and deleted every file of a folder
// once named as the evidence folder (a data dir, /etc). The local storage lists only its own key
// layout, and only in a folder that carries its marker or holds nothing else.

const ORG = '0190c1a2-0000-7000-8000-00000000000a';
const key = (n: number, day = '2026-11-20') => `${ORG}/${day}/0190c1a2-0000-7000-8000-${String(n).padStart(12, '0')}`;
const silent = { warn: () => {} };

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'argus-evfolder-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every file under `dir` (relative paths), sorted. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

/** Objects as an earlier version left them: written straight into the layout, no marker. */
async function oldObjects(dir: string, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    await mkdir(join(dir, ORG, '2026-11-20'), { recursive: true });
    await writeFile(join(dir, key(i)), Buffer.alloc(100, i));
  }
}

const sink = () => {
  const lines: string[] = [];
  return {
    lines,
    out: {
      write: (s: string) => {
        lines.push(s);
        return true;
      },
      isTTY: false,
    } as unknown as NodeJS.WriteStream,
  };
};

describe('the plane lists and moves only what it wrote', () => {
  it('the key layout: <org uuid>/<yyyy-mm-dd>/<ref uuid>[.preview.jpg], nothing else', () => {
    expect(isEvidenceKey(key(1))).toBe(true);
    expect(isEvidenceKey(`${key(1)}.preview.jpg`)).toBe(true);
    for (const k of [
      'o/d/one',
      'etc/passwd',
      `${ORG}/2026-11-20`,
      `${key(1)}/x`,
      `../${key(1)}`,
      `${ORG}/today/${ORG}`,
      `.argus-probe/${ORG}`,
    ])
      expect(isEvidenceKey(k), k).toBe(false);
  });

  it('migrate from a folder that held other files (a data dir) refuses, exit 2: nothing moved, nothing deleted', async () => {
    const dir = join(root, 'shared'),
      target = join(root, 'shared-target');
    await mkdir(join(dir, 'db'), { recursive: true });
    await writeFile(join(dir, 'notes.txt'), 'mine');
    await writeFile(join(dir, 'db', 'PG_VERSION'), '16');
    await oldObjects(dir, 2);
    const before = await tree(dir);
    const file = join(root, 'shared.toml');
    await writeFile(
      file,
      `[evidence_storage]\nbackend = "local"\ndir = "${target}"\n\n[evidence_storage_retired]\nbackend = "local"\ndir = "${dir}"\n`,
    );
    const { lines, out } = sink();
    expect(await evidenceMigrateCommand(file, out)).toBe(2);
    expect(lines.join('')).toContain(`${dir} holds files the plane did not write`);
    expect(lines.join('')).toContain('nothing moved');
    expect(await tree(dir)).toEqual(before);
    expect(existsSync(join(dir, EVIDENCE_MARKER))).toBe(false);
    expect(existsSync(join(target, ORG))).toBe(false);
  });

  it('a folder of an earlier version (only the layout, no marker) is adopted: marker written, its objects moved', async () => {
    const dir = join(root, 'old'),
      target = join(root, 'old-target');
    await oldObjects(dir, 3);
    await writeFile(join(dir, ORG, '2026-11-20', '.argus-tmp-x.1.ab'), 'a write that never finished');
    const file = join(root, 'old.toml');
    await writeFile(
      file,
      `[evidence_storage]\nbackend = "local"\ndir = "${target}"\n\n[evidence_storage_retired]\nbackend = "local"\ndir = "${dir}"\n`,
    );
    const { lines, out } = sink();
    expect(await evidenceMigrateCommand(file, out)).toBe(0);
    expect(lines.join('')).toContain('3 moved (300 bytes)');
    expect(await tree(dir)).toEqual([EVIDENCE_MARKER, `${ORG}/2026-11-20/.argus-tmp-x.1.ab`]);
    expect((await tree(target)).filter((k) => k !== EVIDENCE_MARKER)).toEqual([key(1), key(2), key(3)]);
    expect(await readFile(join(target, EVIDENCE_MARKER), 'utf8')).toMatch(/^argus-evidence-folder 1\n/);
  });

  it('in an owned folder, files put there later are neither listed nor moved; links are never followed', async () => {
    const dir = join(root, 'owned');
    const s = new LocalEvidenceStorage(dir);
    await s.put(key(1), Buffer.alloc(10, 1), 'x');
    await writeFile(join(dir, 'README'), "an operator's note");
    await writeFile(join(dir, ORG, '2026-11-20', 'not-a-ref'), 'x');
    const secret = join(root, 'outside-secret');
    await writeFile(secret, 'not evidence');
    await symlink(secret, join(dir, key(2)));
    await symlink(root, join(dir, '0190c1a2-0000-7000-8000-0000000000ff'));
    const listed: string[] = [];
    for await (const o of s.list()) listed.push(o.key);
    expect(listed).toEqual([key(1)]);
  });

  it('a write refuses a key outside the layout, and a folder that holds other files', async () => {
    const s = new LocalEvidenceStorage(join(root, 'w1'));
    await expect(s.put('o/d/one', Buffer.alloc(1), 'x')).rejects.toThrow('not an evidence key');
    const busy = join(root, 'w2');
    await mkdir(busy);
    await writeFile(join(busy, 'photo.jpg'), 'x');
    await expect(new LocalEvidenceStorage(busy).put(key(1), Buffer.alloc(1), 'x')).rejects.toBeInstanceOf(
      EvidenceFolderRefused,
    );
    expect(await readdir(busy)).toEqual(['photo.jpg']);
  });

  it.each(['/', '/etc', '/usr', '/var', '/proc', '/sys', '/dev', '/boot', '/proc/self', '/etc/../etc/'])(
    '%s is refused by its path, before any file is read',
    async (dir) => {
      await expect(inspectEvidenceFolder(dir, null)).rejects.toBeInstanceOf(EvidenceFolderRefused);
      expect(parseWith(`[evidence_storage]\ndir = "${dir}"\n`)).toThrow(/\[evidence_storage\] dir: .* system folder/);
    },
  );

  it('the data dir, a folder that holds it, and a link to a system folder are refused', async () => {
    const data = join(root, 'plane-data');
    await mkdir(data);
    await expect(inspectEvidenceFolder(data, data)).rejects.toThrow("is the plane's data dir");
    await expect(inspectEvidenceFolder(root, data)).rejects.toThrow("holds the plane's data dir");
    await symlink('/etc', join(root, 'innocent'));
    await expect(inspectEvidenceFolder(join(root, 'innocent'), data)).rejects.toThrow(
      'leads to /etc is a system folder',
    );
    expect(parseWith(`[evidence_storage]\ndir = "."\n`, data)).toThrow(
      '[evidence_storage] dir: ' + data + " is the plane's data dir",
    );
  });

  it('at start: a folder holding other files stops the plane (ConfigError, exit 2); an old folder is adopted; a missing one is made', async () => {
    const busy = join(root, 'start-busy');
    await mkdir(busy);
    await writeFile(join(busy, 'vacation.mov'), 'x');
    const at = (dir: string) =>
      claimEvidenceAtStart({ evidence: { backend: 'local', dir }, dataDir: join(root, 'plane-data') }, silent);
    await expect(at(busy)).rejects.toBeInstanceOf(ConfigError);
    await expect(at(busy)).rejects.toThrow('holds files the plane did not write (vacation.mov)');
    const old = join(root, 'start-old');
    await oldObjects(old, 1);
    await at(old);
    expect(existsSync(join(old, EVIDENCE_MARKER))).toBe(true);
    await at(join(root, 'start-new'));
    expect(await readdir(join(root, 'start-new'))).toEqual([EVIDENCE_MARKER]);
  });
});

function parseWith(text: string, dataDir = '/srv/argus-data') {
  return () => parsePlaneConfig({ text, configFile: null, env: {}, dataDir });
}
