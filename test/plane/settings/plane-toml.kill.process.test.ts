import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from '@decimalturn/toml-patch';
import { DEFAULT_PLANE_TOML } from '../../../src/plane/config/config.js';
import { removeOrphanTempFiles } from '../../../src/common/atomic-file.js';

// kill -9 during settings writes (issue 12): a process edits plane.toml in place in a loop with the
// settings' editor and the project's atomic writer and is killed at random moments; after every
// kill plane.toml is there, whole (parses, its comments and foreign lines intact), and the next
// start's orphan cleanup leaves no temporary file behind.

const CHILD = resolve('dist/test/plane/settings/toml-writer.child.js');
const FOREIGN = '\n# an operator\'s note\n[vendor]\nkey = "value"\n';

describe('plane.toml under kill -9', () => {
  it('is never partial nor missing, and no stray temp file stays after the cleanup', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'argus-toml-kill-'));
    const file = join(dir, 'plane.toml');
    await writeFile(file, DEFAULT_PLANE_TOML + FOREIGN);
    try {
      for (let round = 0; round < 25; round++) {
        const child = spawn(process.execPath, [CHILD, file], { stdio: ['ignore', 'pipe', 'inherit'] });
        await new Promise<void>((r) => child.stdout!.once('data', () => r()));
        await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 60)));
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
        const text = await readFile(file, 'utf8');
        const doc = parse(text) as {
          dvr_export_max_secs: number;
          vendor: { key: string };
          logging: { minimum_level: string };
        };
        expect(doc.dvr_export_max_secs).toBeGreaterThanOrEqual(60);
        expect(doc.vendor.key).toBe('value');
        expect(text.endsWith(FOREIGN)).toBe(true);
        expect(text.startsWith(DEFAULT_PLANE_TOML.split('\n')[0]!)).toBe(true);
        await removeOrphanTempFiles(dir);
        expect(await readdir(dir)).toEqual(['plane.toml']);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
