import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportKey, loadOrCreateExportKey, verificationKey } from '../../../src/plane/exports/export-key.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-export-key-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the plane export key', () => {
  it('is made once in the data folder (0600), the same for every process that starts together', async () => {
    const data = join(dir, 'race');
    const keys = await Promise.all(Array.from({ length: 12 }, () => new ExportKey(data).publicPem()));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(await readdir(data)).toEqual(['export-key.pem']);
    expect((await stat(join(data, 'export-key.pem'))).mode & 0o777).toBe(0o600);
    // read again by a later start: the same key
    expect(await new ExportKey(data).publicPem()).toBe(keys[0]);
    expect(verificationKey(keys[0]!).asymmetricKeyType).toBe('ed25519');
  });

  it('refuses a key file that holds another kind of key rather than signing with it', async () => {
    const data = join(dir, 'rsa');
    await loadOrCreateExportKey(data);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    await writeFile(join(data, 'export-key.pem'), rsa);
    await expect(new ExportKey(data).sign(Buffer.from('x'))).rejects.toThrow(/no Ed25519 key/);
    expect(() => verificationKey(rsa as string)).toThrow(/Ed25519/);
  });
});
