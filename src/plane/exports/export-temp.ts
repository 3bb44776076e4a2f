import { readdir, rm, stat } from 'node:fs/promises';
import type { Clock } from '../../common/clock.js';
import { resolveInside } from '../../common/resolve-inside.js';
import type { Job } from '../jobs/jobs.js';

/** A spooled MP4 older than this was left by a process that stopped mid-export. */
export const EXPORT_TEMP_MAX_AGE_MS = 6 * 3600_000;
const SPOOLED = /^export-[0-9a-f-]{36}\.mp4$/;

/**
 * Removes the spooled MP4s of `<data dir>/temp` that no export still needs: a plane stopped while
 * sending a zip leaves its file behind. Six hours is past any zip's sending; a file removed
 * while a slow client still reads it is read to its end all the same (an open file outlives its
 * name). Only the exports' own names are touched. Answers how many files went.
 */
export async function sweepExportTemp(
  tempDir: string,
  nowMs: number,
  maxAgeMs = EXPORT_TEMP_MAX_AGE_MS,
): Promise<number> {
  let names: string[];
  try {
    names = await readdir(tempDir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!SPOOLED.test(name)) continue;
    const file = resolveInside(tempDir, name);
    const st = await stat(file).catch(() => null);
    if (!st?.isFile() || nowMs - st.mtimeMs < maxAgeMs) continue;
    await rm(file, { force: true });
    removed++;
  }
  return removed;
}

export function exportTempJob(tempDir: string, clock: Clock): Job {
  return {
    name: 'exports.temp',
    everyMs: 3600_000,
    budgetMs: 60_000,
    run: async () => {
      await sweepExportTemp(tempDir, clock.now());
    },
  };
}
