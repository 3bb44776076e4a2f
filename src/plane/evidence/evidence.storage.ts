import { createReadStream } from 'node:fs';
import { mkdir, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { writeFileAtomic } from '../../common/atomic-file.js';
import { resolveInside } from '../../common/resolve-inside.js';
import { writeStreamAtomic } from './upload-gate.js';
import { claimEvidenceFolder, isEvidenceKey, layoutObjects, type FolderState } from './evidence-folder.js';

/**
 * Where evidence bytes live. Keys are the plane's own (`<org>/<yyyy-mm-dd>/<ref>`), never a
 * client's path. A backend writes a whole object or nothing; `open` answers null for bytes that
 * are gone (404 object_gone). The `local` backend is a directory; the `s3` backend implements
 * the same calls over a bucket.
 */
export interface EvidenceStorage {
  readonly backend: 'local' | 's3';
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Writes a stream of at most `maxBytes` (else 413) whole or not at all; absent: `put` after reading it. */
  putStream?(
    key: string,
    body: Readable,
    contentType: string,
    maxBytes: number,
  ): Promise<{ size: number; sha256: Buffer }>;
  open(key: string): Promise<{ size: number; body: Readable } | null>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Every object held, in no particular order (rotation checks, `argus-plane evidence migrate`). */
  list(): AsyncIterable<{ key: string; size: number }>;
  /** A description for logs and settings, without secrets. */
  describe(): { backend: string; dir?: string };
}

export function storageKey(orgId: string, ref: string, at: Date): string {
  return `${orgId}/${at.toISOString().slice(0, 10)}/${ref}`;
}

/**
 * A folder of the plane's own (src/plane/evidence/evidence-folder.ts): the first write claims it
 * (marker written, the folder refused when it holds anything else); a listing sees only the
 * key layout, and only in a claimed folder. Reads and deletes go by key (keys come from the
 * database), so a retired folder keeps serving what it holds.
 */
export class LocalEvidenceStorage implements EvidenceStorage {
  readonly backend = 'local' as const;
  private owned = false;

  /** `dataDir`: the plane's data dir, refused as an evidence folder (null: not known here). */
  constructor(
    private readonly dir: string,
    private readonly dataDir: string | null = null,
  ) {}

  private path(key: string): string {
    return resolveInside(this.dir, key);
  }

  /**
   * The folder made the plane's; once owned, not looked at again by this instance. A refusal is
   * not remembered, so a folder put right works without a restart. Calls racing at first each
   * check (claiming twice is harmless: the marker is written whole).
   */
  async claim(create: boolean): Promise<FolderState> {
    if (this.owned) return 'owned';
    const state = await claimEvidenceFolder(this.dir, this.dataDir, create);
    if (state === 'owned') this.owned = true;
    return state;
  }

  /** Only keys of the layout are written: any other could never be listed, so never moved or found again. */
  private async writable(key: string): Promise<string> {
    if (!isEvidenceKey(key)) throw new Error('not an evidence key');
    await this.claim(true);
    return this.path(key);
  }

  async put(key: string, bytes: Uint8Array, _contentType?: string): Promise<void> {
    const path = await this.writable(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, bytes, 0o600);
  }

  async putStream(
    key: string,
    body: Readable,
    _contentType: string,
    maxBytes: number,
  ): Promise<{ size: number; sha256: Buffer }> {
    return writeStreamAtomic(await this.writable(key), body, maxBytes);
  }

  async open(key: string): Promise<{ size: number; body: Readable } | null> {
    const path = this.path(key);
    try {
      const s = await stat(path);
      return { size: s.size, body: createReadStream(path, { highWaterMark: 64 * 1024 }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.path(key));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await unlink(this.path(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  /**
   * The objects of the key layout (never temp files, probes or anything the plane did not
   * write). A folder without the marker is claimed first (adopted when it holds only the
   * layout); one that holds other files throws EvidenceFolderRefused: nothing of it is listed.
   */
  async *list(): AsyncIterable<{ key: string; size: number }> {
    if ((await this.claim(false)) === 'missing') return;
    for await (const o of layoutObjects(this.dir)) {
      const size = await stat(o.path).then(
        (s) => s.size,
        () => null,
      );
      if (size !== null) yield { key: o.key, size };
    }
  }

  describe() {
    return { backend: 'local', dir: this.dir };
  }
}
