import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { replaceFilesTogether, removeOrphanTempFiles } from '../../common/atomic-file.js';
import { resolveInside } from '../../common/resolve-inside.js';
import type { Clock } from '../../common/clock.js';

export interface HistoryEntry {
  epoch: number;
  hash: string;
  ts_ms: number;
  actor: string;
  via: string;
}

export function configHash(bytes: string): string {
  return createHash('sha256').update(bytes, 'utf8').digest('hex');
}

/**
 * Append-only record of every configuration the node has applied, under {data_dir}.
 * The index is replaced atomically as a whole (it is small); the bytes of each version are
 * kept once per hash, so a rollback can apply them again as a new epoch.
 */
export class ConfigHistory {
  private entries: HistoryEntry[] = [];
  private readonly blobs: string;
  private readonly index: string;

  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
  ) {
    this.blobs = join(dir, 'blobs');
    this.index = join(dir, 'index.json');
  }

  async open(): Promise<void> {
    await mkdir(this.blobs, { recursive: true, mode: 0o700 });
    await removeOrphanTempFiles(this.dir);
    await removeOrphanTempFiles(this.blobs);
    try {
      const parsed: unknown = JSON.parse(await readFile(this.index, 'utf8'));
      if (!Array.isArray(parsed)) throw new Error(`${this.index} is not a JSON array`);
      this.entries = parsed as HistoryEntry[];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.entries = [];
    }
  }

  list(): HistoryEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  latest(): HistoryEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  get(epoch: number): HistoryEntry | undefined {
    return this.entries.find((e) => e.epoch === epoch);
  }

  async append(bytes: string, actor: string, via: string): Promise<HistoryEntry> {
    return this.appendWith(bytes, actor, via);
  }

  /**
   * Appends a version and, in the same step, replaces `file` (the configuration itself): the blob,
   * the file and the index are all written to temp files first and renamed after, so a full disk
   * refuses the save before anything changes (a refused save must not take effect at the next
   * start). Renamed blob first (content-addressed, harmless alone), then the file, then the index.
   */
  async appendWith(
    bytes: string,
    actor: string,
    via: string,
    file?: { path: string; mode: number },
  ): Promise<HistoryEntry> {
    const hash = configHash(bytes);
    const entry: HistoryEntry = { epoch: (this.latest()?.epoch ?? 0) + 1, hash, ts_ms: this.clock.now(), actor, via };
    const next = [...this.entries, entry];
    await replaceFilesTogether([
      // Blobs hold secrets (the whole configuration): owner-only like the file itself.
      { path: this.blobPath(hash), data: bytes, mode: 0o600 },
      ...(file ? [{ path: file.path, data: bytes, mode: file.mode }] : []),
      { path: this.index, data: JSON.stringify(next, null, 1) + '\n', mode: 0o600 },
    ]);
    this.entries = next;
    return entry;
  }

  async bytes(hash: string): Promise<string> {
    return readFile(this.blobPath(hash), 'utf8');
  }

  private blobPath(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error('invalid configuration hash');
    return resolveInside(this.blobs, `${hash}.conf`);
  }
}
