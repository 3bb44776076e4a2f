import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXPORT_TEMP_MAX_AGE_MS, sweepExportTemp } from '../../../src/plane/exports/export-temp.js';

let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the exports temp folder', () => {
  it("removes spooled MP4s older than six hours, and nothing that is not an export's", async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-export-temp-'));
    const now = Date.parse('2026-06-01T12:00:00Z');
    const old = 'export-0190c0de-0000-7000-8000-000000000001.mp4';
    const recent = 'export-0190c0de-0000-7000-8000-000000000002.mp4';
    for (const name of [old, recent, 'notes.txt', 'export-other.mp4']) await writeFile(join(dir, name), 'x');
    const past = new Date(now - EXPORT_TEMP_MAX_AGE_MS - 1000);
    for (const name of [old, 'notes.txt', 'export-other.mp4']) await utimes(join(dir, name), past, past);
    const fresh = new Date(now - 60_000);
    await utimes(join(dir, recent), fresh, fresh);
    expect(await sweepExportTemp(dir, now)).toBe(1);
    expect((await readdir(dir)).sort()).toEqual([
      'export-0190c0de-0000-7000-8000-000000000002.mp4',
      'export-other.mp4',
      'notes.txt',
    ]);
    expect(await sweepExportTemp(join(dir, 'absent'), now)).toBe(0);
  });
});
