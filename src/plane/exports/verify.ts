import { createHash, verify, type KeyObject } from 'node:crypto';
import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { ZIP_MANIFEST, ZIP_MP4, ZIP_SIGNATURE } from './export-zip.js';

/** `argus-plane verify-export`'s exit codes: 0 valid, 1 altered, 2 unreadable. */
export type VerifyCode = 0 | 1 | 2;
export interface Verdict {
  code: VerifyCode;
  /** one sentence for the terminal */
  sentence: string;
}

const NAMES = [ZIP_MP4, ZIP_MANIFEST, ZIP_SIGNATURE];
// manifest.json and manifest.sig are a few hundred bytes: a larger entry is not the plane's.
const SMALL_ENTRY_MAX = 64 * 1024;

class Unreadable extends Error {}

const open = (file: string): Promise<ZipFile> =>
  new Promise((resolve, reject) => {
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true },
      (err, zip) => (err ? reject(new Unreadable(err.message)) : resolve(zip)),
    );
  });

/** Every entry by name; a name met twice is kept twice (a second export.mp4 is an alteration). */
function entries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const out: Entry[] = [];
    zip.on('entry', (e: Entry) => {
      out.push(e);
      zip.readEntry();
    });
    zip.on('end', () => resolve(out));
    zip.on('error', (err: Error) => reject(new Unreadable(err.message)));
    zip.readEntry();
  });
}

const readStream = (zip: ZipFile, e: Entry): Promise<Readable> =>
  new Promise((resolve, reject) => {
    zip.openReadStream(e, (err, s) => (err ? reject(new Unreadable(err.message)) : resolve(s)));
  });

async function bytesOf(zip: ZipFile, e: Entry): Promise<Buffer> {
  if (e.uncompressedSize > SMALL_ENTRY_MAX) throw new Unreadable(`${e.fileName} is too large`);
  const chunks: Buffer[] = [];
  try {
    for await (const c of await readStream(zip, e)) chunks.push(c as Buffer);
  } catch (err) {
    throw new Unreadable((err as Error).message);
  }
  return Buffer.concat(chunks);
}

async function sha256Of(zip: ZipFile, e: Entry): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const c of await readStream(zip, e)) hash.update(c as Buffer);
  } catch (err) {
    throw new Unreadable((err as Error).message);
  }
  return hash.digest('hex');
}

/**
 * Checks an export zip offline (document 4 §14): manifest.sig must be the Ed25519 signature of
 * manifest.json's exact bytes under `key`, and export.mp4's sha256 the manifest's. Altered (1):
 * the signature or the hash does not match, or the zip holds entries besides the three. Unreadable
 * (2): not a zip, an entry missing or cut short, a signed manifest that is not the plane's JSON.
 */
export async function verifyExport(file: string, key: KeyObject): Promise<Verdict> {
  let zip: ZipFile | null = null;
  try {
    zip = await open(file);
    const all = await entries(zip);
    const byName = new Map(all.map((e) => [e.fileName, e]));
    const missing = NAMES.filter((n) => !byName.has(n));
    if (missing.length) return { code: 2, sentence: `unreadable: the zip has no ${missing.join(', ')}` };
    if (all.length !== NAMES.length)
      return { code: 1, sentence: `altered: the zip holds other entries than ${NAMES.join(', ')}` };
    const manifest = await bytesOf(zip, byName.get(ZIP_MANIFEST)!);
    const sigText = (await bytesOf(zip, byName.get(ZIP_SIGNATURE)!)).toString('latin1').trim();
    const sig = Buffer.from(sigText, 'base64');
    const signed = /^[A-Za-z0-9+/]+={0,2}$/.test(sigText) && sig.length === 64 && verify(null, manifest, key, sig);
    if (!signed)
      return {
        code: 1,
        sentence: 'altered: manifest.sig is not the signature of manifest.json by this key (changed, or another key)',
      };
    let expected: unknown;
    try {
      expected = (JSON.parse(manifest.toString('utf8')) as { sha256?: unknown }).sha256;
    } catch {
      expected = undefined;
    }
    if (typeof expected !== 'string' || !/^[0-9a-f]{64}$/.test(expected))
      return { code: 2, sentence: 'unreadable: the signed manifest.json has no sha256' };
    const actual = await sha256Of(zip, byName.get(ZIP_MP4)!);
    if (actual !== expected) return { code: 1, sentence: 'altered: export.mp4 is not the file the manifest signs' };
    const m = JSON.parse(manifest.toString('utf8')) as Record<string, unknown>;
    return {
      code: 0,
      sentence: `valid: ${String(m.camera_name)} (${String(m.stream)}) from ${String(m.from)} to ${String(m.to)}, exported by ${String(m.exported_by)} at ${String(m.exported_at)}, audit ${String(m.audit_id)}`,
    };
  } catch (err) {
    if (err instanceof Unreadable) return { code: 2, sentence: `unreadable: not an export zip (${err.message})` };
    throw err;
  } finally {
    zip?.close();
  }
}
