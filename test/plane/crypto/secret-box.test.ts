import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox, loadOrCreateSecretKey } from '../../../src/plane/crypto/secret-box.js';

describe('secret key file', () => {
  it('is created once with mode 0600 and read back unchanged', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'argus-key-'));
    const [a, b, c] = await Promise.all([
      loadOrCreateSecretKey(dir),
      loadOrCreateSecretKey(dir),
      loadOrCreateSecretKey(dir),
    ]);
    expect(a).toHaveLength(32);
    expect(Buffer.from(b!)).toEqual(Buffer.from(a));
    expect(Buffer.from(c!)).toEqual(Buffer.from(a));
    expect((await stat(join(dir, 'secret.key'))).mode & 0o777).toBe(0o600);
    expect(Buffer.from(await loadOrCreateSecretKey(dir))).toEqual(Buffer.from(a));
    expect((await readFile(join(dir, 'secret.key'), 'utf8')).trim()).toBe(Buffer.from(a).toString('base64'));
  });

  it('refuses a damaged key file instead of making a new key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'argus-key-'));
    await writeFile(join(dir, 'secret.key'), 'short\n');
    await expect(loadOrCreateSecretKey(dir)).rejects.toThrow(/32-byte/);
  });
});

describe('SecretBox', () => {
  const box = new SecretBox(new Uint8Array(32).fill(1));
  it('round-trips, with a fresh nonce each time', () => {
    const a = box.seal('token', 'ctx');
    expect(box.seal('token', 'ctx')).not.toBe(a);
    expect(box.open(a, 'ctx')).toBe('token');
  });
  it('does not open under another key, another context or after tampering', () => {
    const a = box.seal('token', 'ctx');
    expect(() => new SecretBox(new Uint8Array(32).fill(2)).open(a, 'ctx')).toThrow();
    expect(() => box.open(a, 'other')).toThrow();
    const parts = a.split('.');
    parts[3] = Buffer.from('tampered').toString('base64');
    expect(() => box.open(parts.join('.'), 'ctx')).toThrow();
    expect(() => new SecretBox(new Uint8Array(16))).toThrow();
  });
});
