import { createReadStream } from 'node:fs';
import { mkdir, opendir, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { writeFileAtomic } from '../../common/atomic-file.js';
import { resolveInside } from '../../common/resolve-inside.js';
import { writeStreamAtomic } from './upload-gate.js';

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
  putStream?(key: string, body: Readable, contentType: string, maxBytes: number): Promise<{ size: number; sha256: Buffer }>;
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

export class LocalEvidenceStorage implements EvidenceStorage {
  readonly backend = 'local' as const;
  constructor(private readonly dir: string) {}

  private path(key: string): string {
    return resolveInside(this.dir, key);
  }

  async put(key: string, bytes: Uint8Array, _contentType?: string): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, bytes, 0o600);
  }

  putStream(key: string, body: Readable, _contentType: string, maxBytes: number): Promise<{ size: number; sha256: Buffer }> {
    return writeStreamAtomic(this.path(key), body, maxBytes);
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
    try { await stat(this.path(key)); return true; } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await unlink(this.path(key)).catch((err: NodeJS.ErrnoException) => { if (err.code !== 'ENOENT') throw err; });
  }

  /** Files under the folder, less the temp files of writes in flight and the settings' probe objects. */
  async *list(): AsyncIterable<{ key: string; size: number }> {
    const walk = async function* (dir: string): AsyncGenerator<string> {
      let d;
      try { d = await opendir(dir); } catch (err) { if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; throw err; }
      for await (const e of d) {
        if (e.isDirectory()) yield* walk(join(dir, e.name));
        else if (e.isFile() && !e.name.startsWith('.argus-')) yield join(dir, e.name);
      }
    };
    for await (const path of walk(this.dir)) {
      const size = await stat(path).then((s) => s.size, () => null);
      if (size !== null) yield { key: relative(this.dir, path).split(sep).join('/'), size };
    }
  }

  describe() { return { backend: 'local', dir: this.dir }; }
}
