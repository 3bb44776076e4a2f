import { open, rename, readdir, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

const TEMP_MARK = '.argus-tmp-';

/**
 * Replaces `path` with `data` so that a reader sees either the old or the whole new file.
 * Written by hand because write-file-atomic published a truncated file on a full disk here:
 * every byte is written (short writes looped), fsynced, renamed, then the directory fsynced.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const dir = dirname(path);
  const temp = join(dir, `${TEMP_MARK}${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}`);
  const fh = await open(temp, 'wx', mode);
  try {
    let offset = 0;
    while (offset < bytes.length) {
      const { bytesWritten } = await fh.write(bytes, offset, bytes.length - offset);
      if (bytesWritten <= 0) throw new Error('short write');
      offset += bytesWritten;
    }
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw err;
  }
  await fh.close();
  try {
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
  await fsyncDir(dir);
}

async function fsyncDir(dir: string): Promise<void> {
  const dh = await open(dir, 'r');
  try { await dh.sync(); } finally { await dh.close(); }
}

/** Removes temp files left by a crash between write and rename; called at start. */
export async function removeOrphanTempFiles(dir: string): Promise<number> {
  let removed = 0;
  let names: string[];
  try { names = await readdir(dir); } catch { return 0; }
  for (const name of names) {
    if (name.startsWith(TEMP_MARK)) {
      await unlink(join(dir, name)).catch(() => {});
      removed++;
    }
  }
  return removed;
}
