import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { link, readFile, unlink, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';

const VERSION = 'v1';
const KEY_BYTES = 32;

/**
 * AES-256-GCM for the secrets the plane must give back to a node (its API token, the viewer
 * token secret): they cannot be hashed. Each value is bound to its row and field through the
 * associated data, so a ciphertext copied into another row or column does not open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== KEY_BYTES) throw new Error(`secret key must be ${KEY_BYTES} bytes`);
    this.key = Buffer.from(key);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return [VERSION, iv.toString('base64'), c.getAuthTag().toString('base64'), body.toString('base64')].join('.');
  }

  open(sealed: string, context: string): string {
    const [v, iv, tag, body] = sealed.split('.');
    if (v !== VERSION || !iv || !tag || body === undefined) throw new Error('sealed value has an unknown format');
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    d.setAAD(Buffer.from(context, 'utf8'));
    d.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(body, 'base64')), d.final()]).toString('utf8');
  }
}

/**
 * `<data dir>/secret.key`: created once with mode 0600, then only read. Written to a temporary
 * file and hard-linked into place, so two processes starting together end with one key and a
 * crash never leaves a half-written key behind.
 */
export async function loadOrCreateSecretKey(dataDir: string): Promise<Uint8Array> {
  const file = join(dataDir, 'secret.key');
  const existing = await readKey(file);
  if (existing) return existing;
  const temp = join(dataDir, `.secret.key.${process.pid}.${randomBytes(4).toString('hex')}`);
  await writeFile(temp, randomBytes(KEY_BYTES).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  await chmod(temp, 0o600);
  try {
    await link(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(temp).catch(() => {});
  }
  const key = await readKey(file);
  if (!key) throw new Error(`${file}: could not be created`);
  return key;
}

async function readKey(file: string): Promise<Uint8Array | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${file}: not a ${KEY_BYTES}-byte base64 key`);
  return key;
}
