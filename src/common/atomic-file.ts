import { open, rename, readdir, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

const TEMP_MARK = '.argus-tmp-';

/** A file written whole to a temp name beside `path`, not yet in place. */
export interface StagedFile {
  readonly path: string;
  /** Renames it into place and fsyncs the folder (a rename needs no free space). */
  commit(): Promise<void>;
  /** Removes the temp file. */
  discard(): Promise<void>;
}

/**
 * Writes `data` to a temp file beside `path`: every byte (short writes looped), then fsync.
 * Several files that must change together are all staged first and committed after, so a full
 * disk refuses the change before any of them is replaced.
 */
export function stageFile(path: string, data: string | Uint8Array, mode = 0o600): Promise<StagedFile> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return stageWith(path, (write) => write(bytes), mode);
}

/**
 * Stages a file whose bytes `fill` hands to `write` piece by piece (a request body streamed to
 * disk); a failure of `fill` removes the temp file and is thrown as it is.
 */
export async function stageWith(
  path: string,
  fill: (write: (chunk: Uint8Array) => Promise<void>) => Promise<void>,
  mode = 0o600,
): Promise<StagedFile> {
  const dir = dirname(path);
  const temp = join(dir, `${TEMP_MARK}${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}`);
  const fh = await open(temp, 'wx', mode);
  try {
    await fill(async (chunk) => {
      let offset = 0;
      while (offset < chunk.length) {
        const { bytesWritten } = await fh.write(chunk, offset, chunk.length - offset);
        if (bytesWritten <= 0) throw new Error('short write');
        offset += bytesWritten;
      }
    });
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw err;
  }
  await fh.close();
  return {
    path,
    async commit() {
      try {
        await rename(temp, path);
      } catch (err) {
        await unlink(temp).catch(() => {});
        throw err;
      }
      await fsyncDir(dir);
    },
    discard: () => unlink(temp).catch(() => {}),
  };
}

/** Stages every file, then commits them in order; if any cannot be staged, none is replaced. */
export async function replaceFilesTogether(
  files: Array<{ path: string; data: string | Uint8Array; mode?: number }>,
): Promise<void> {
  const staged: StagedFile[] = [];
  try {
    for (const f of files) staged.push(await stageFile(f.path, f.data, f.mode));
  } catch (err) {
    await Promise.all(staged.map((s) => s.discard()));
    throw err;
  }
  for (const s of staged) await s.commit();
}

/**
 * Replaces `path` with `data` so that a reader sees either the old or the whole new file.
 * Written by hand because write-file-atomic published a truncated file on a full disk here:
 * every byte is written (short writes looped), fsynced, renamed, then the directory fsynced.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  await (await stageFile(path, data, mode)).commit();
}

async function fsyncDir(dir: string): Promise<void> {
  const dh = await open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}

/** Removes temp files left by a crash between write and rename; called at start. */
export async function removeOrphanTempFiles(dir: string): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (name.startsWith(TEMP_MARK)) {
      await unlink(join(dir, name)).catch(() => {});
      removed++;
    }
  }
  return removed;
}
