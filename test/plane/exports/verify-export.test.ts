import { generateKeyPairSync, randomInt } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import yauzl from 'yauzl';
import { ExportKey } from '../../../src/plane/exports/export-key.js';
import { exportZip, manifestBytes, spool } from '../../../src/plane/exports/export-zip.js';
import { verifyExportCommand } from '../../../src/plane/exports/verify-export.cli.js';
import { makeMp4 } from './mp4.js';

let dir: string;
let zipBytes: Buffer;
let publicKeyFile: string;
const entries: Record<string, { start: number; size: number }> = {};

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

/** The command in this process; `keyFile` null: no --key (the settings' plane's key). */
async function check(file: string, keyFile: string | null = publicKeyFile, configFile = join(dir, 'none.toml')) {
  const out = new Capture();
  const code = await verifyExportCommand({ file, keyFile: keyFile ?? undefined, configFile }, out);
  return { code, text: out.text };
}

/** Where each entry's data lies in the zip: after its local header (30 bytes, its name, its extra field). */
function locate(zip: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, z) => {
      if (err) return reject(err);
      z.on('entry', (e: yauzl.Entry) => {
        const off = e.relativeOffsetOfLocalHeader;
        const start = off + 30 + zip.readUInt16LE(off + 26) + zip.readUInt16LE(off + 28);
        entries[e.fileName] = { start, size: e.compressedSize };
        z.readEntry();
      });
      z.on('end', () => resolve());
      z.readEntry();
    });
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-verify-'));
  const mp4 = join(dir, 'source.mp4');
  await makeMp4(mp4, 2);
  const key = new ExportKey(join(dir, 'data'));
  const spooled = join(dir, 'spooled.mp4');
  const { sha256, size } = await spool(createReadStream(mp4), spooled);
  const manifest = manifestBytes({
    camera_id: '0190c0de-0000-7000-8000-000000000001',
    camera_name: 'Gate Café',
    stream: 'main',
    from: '2026-03-08T07:30:00.000Z',
    to: '2026-03-08T07:31:30.000Z',
    sha256,
    exported_by: 'Ada',
    exported_at: '2026-03-08T08:00:00.000Z',
    audit_id: '0190c0de-0000-7000-8000-000000000002',
  });
  const zip = await exportZip(spooled, size, manifest, await key.sign(manifest), new Date());
  const chunks: Buffer[] = [];
  for await (const c of zip.stream) chunks.push(c as Buffer);
  zipBytes = Buffer.concat(chunks);
  expect(zipBytes.length).toBe(zip.size);
  await writeFile(join(dir, 'export.zip'), zipBytes);
  publicKeyFile = join(dir, 'public.pem');
  await writeFile(publicKeyFile, await key.publicPem());
  await locate(zipBytes);
  expect(Object.keys(entries)).toEqual(['export.mp4', 'manifest.json', 'manifest.sig']);
  expect(entries['export.mp4']!.size).toBe(size);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('argus-plane verify-export', () => {
  it('exit 0 for the export as made, with one sentence', async () => {
    const r = await check(join(dir, 'export.zip'));
    expect(r.code).toBe(0);
    expect(r.text).toMatch(/^.*export\.zip: valid: Gate Café \(main\) from 2026-03-08T07:30:00.000Z to .*\.\n$/);
  });

  it('rejects 100 copies each with one byte changed in export.mp4 or manifest.json, never exit 0', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 100; i++) {
      const copy = Buffer.from(zipBytes);
      const entry = entries[i % 2 === 0 ? 'export.mp4' : 'manifest.json']!;
      const at = entry.start + randomInt(entry.size);
      copy[at] = copy[at]! ^ randomInt(1, 256);
      const file = join(dir, `altered-${i}.zip`);
      await writeFile(file, copy);
      const r = await check(file);
      codes.push(r.code);
      await rm(file);
    }
    expect(codes.filter((c) => c === 0)).toEqual([]);
    expect(codes.every((c) => c === 1 || c === 2)).toBe(true);
    // Stored entries: a changed byte is an alteration, never an unreadable zip.
    expect(codes.filter((c) => c === 1).length).toBe(100);
  });

  it('exit 1 under another key, and for a zip holding another entry besides the three', async () => {
    const other = join(dir, 'other.pem');
    await writeFile(other, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string);
    const r = await check(join(dir, 'export.zip'), other);
    expect(r.code).toBe(1);
    expect(r.text).toContain('altered: manifest.sig is not the signature of manifest.json by this key');

    const extra = new ZipFile();
    const files = await readZipEntries();
    for (const [name, bytes] of files) extra.addBuffer(bytes, name, { compress: false });
    extra.addBuffer(Buffer.from('x'), 'note.txt', { compress: false });
    extra.end();
    const chunks: Buffer[] = [];
    for await (const c of extra.outputStream) chunks.push(c as Buffer);
    await writeFile(join(dir, 'extra.zip'), Buffer.concat(chunks));
    expect((await check(join(dir, 'extra.zip'))).code).toBe(1);
  });

  it('exit 2 for what is not an export zip: another file, a cut zip, an entry missing, no file', async () => {
    await writeFile(join(dir, 'not.zip'), 'just text, no zip at all\n');
    const notZip = await check(join(dir, 'not.zip'));
    expect(notZip.code).toBe(2);
    expect(notZip.text).toContain('unreadable');
    await writeFile(join(dir, 'cut.zip'), zipBytes.subarray(0, zipBytes.length - 40));
    expect((await check(join(dir, 'cut.zip'))).code).toBe(2);
    const partial = new ZipFile();
    partial.addBuffer((await readZipEntries()).get('manifest.json')!, 'manifest.json', { compress: false });
    partial.end();
    const chunks: Buffer[] = [];
    for await (const c of partial.outputStream) chunks.push(c as Buffer);
    await writeFile(join(dir, 'partial.zip'), Buffer.concat(chunks));
    const missing = await check(join(dir, 'partial.zip'));
    expect(missing.code).toBe(2);
    expect(missing.text).toContain('no export.mp4, manifest.sig');
    expect((await check(join(dir, 'absent.zip'))).code).toBe(2);
    expect(await verifyExportCommand({ file: undefined, keyFile: publicKeyFile, configFile: '' }, new Capture())).toBe(
      2,
    );
  });

  it('without --key uses the key of the plane whose settings are given; the private key file serves as --key', async () => {
    // A plane's data folder is its settings file's folder.
    const toml = join(dir, 'plane.toml');
    await writeFile(toml, '# a plane that never exported\n');
    const inData = join(dir, 'data', 'plane.toml');
    await writeFile(inData, '');
    expect((await check(join(dir, 'export.zip'), null, inData)).code).toBe(0);
    expect((await check(join(dir, 'export.zip'), join(dir, 'data', 'export-key.pem'))).code).toBe(0);
    // a plane that never exported has no key yet: nothing to check with
    const fresh = await check(join(dir, 'export.zip'), null, toml);
    expect(fresh.code).toBe(2);
    expect(fresh.text).toContain('has no export key yet');
    const badKey = await check(join(dir, 'export.zip'), toml);
    expect(badKey.code).toBe(2);
    expect(badKey.text).toContain('cannot be read as an Ed25519 PEM key');
  });
});

async function readZipEntries(): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const [name, e] of Object.entries(entries)) out.set(name, zipBytes.subarray(e.start, e.start + e.size));
  expect((await readFile(join(dir, 'export.zip'))).length).toBe(zipBytes.length);
  return out;
}
