import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';

/** The zip's entries, by the names document 4 §14 gives them. */
export const ZIP_MP4 = 'export.mp4';
export const ZIP_MANIFEST = 'manifest.json';
export const ZIP_SIGNATURE = 'manifest.sig';

/** manifest.json (document 4 §14): times RFC 3339 UTC, `sha256` the lowercase hex of export.mp4. */
export interface Manifest {
  camera_id: string;
  camera_name: string;
  stream: 'main' | 'sub';
  from: string;
  to: string;
  sha256: string;
  exported_by: string;
  exported_at: string;
  audit_id: string;
}

/** The exact bytes that are signed and stored: the keys in the order above, two-space indented, one closing newline. */
export function manifestBytes(m: Manifest): Buffer {
  const ordered: Manifest = {
    camera_id: m.camera_id,
    camera_name: m.camera_name,
    stream: m.stream,
    from: m.from,
    to: m.to,
    sha256: m.sha256,
    exported_by: m.exported_by,
    exported_at: m.exported_at,
    audit_id: m.audit_id,
  };
  return Buffer.from(JSON.stringify(ordered, null, 2) + '\n', 'utf8');
}

/**
 * Writes `body` to `file` (created, 0600) and hashes it on the way: the manifest needs the MP4's
 * sha256 before the zip's first byte, and the MP4 is never held in memory.
 */
export async function spool(body: Readable, file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(body, tap, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  return { sha256: hash.digest('hex'), size };
}

/**
 * The export zip, streamed: export.mp4 read from `mp4File`, then manifest.json and manifest.sig.
 * Every entry is stored, not deflated, so one changed byte is a changed byte of the MP4 or the
 * manifest (altered), not a broken deflate stream (unreadable); and the zip's length is known
 * before it is sent (`size`, for Content-Length).
 */
export function exportZip(
  mp4File: string,
  mp4Size: number,
  manifest: Buffer,
  signature: string,
  mtime: Date,
): Promise<{ stream: Readable; size: number }> {
  const zip = new ZipFile();
  const entry = { compress: false, mtime, mode: 0o100644 };
  zip.addReadStreamLazy(ZIP_MP4, { ...entry, size: mp4Size }, (cb) => cb(null, createReadStream(mp4File)));
  zip.addBuffer(manifest, ZIP_MANIFEST, entry);
  zip.addBuffer(Buffer.from(signature + '\n', 'ascii'), ZIP_SIGNATURE, entry);
  // @types/yazl declares the size callback without its argument (the README's calculatedTotalSize).
  const end = zip.end.bind(zip) as unknown as (o: object, cb: (size: number) => void) => void;
  return new Promise((resolve, reject) => {
    end({}, (size) => {
      if (size < 0) reject(new Error('zip size unknown'));
      else resolve({ stream: zip.outputStream as Readable, size });
    });
  });
}
