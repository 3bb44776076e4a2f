import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { link, mkdir, readFile, unlink } from 'node:fs/promises';
import { writeFileAtomic } from '../../common/atomic-file.js';
import { resolveInside } from '../../common/resolve-inside.js';

/** The plane's Ed25519 export key: `<data dir>/export-key.pem`, PKCS#8, mode 0600. */
export const EXPORT_KEY_FILE = 'export-key.pem';

/** The private key in `file`, or null when there is none yet; a file that holds no Ed25519 key throws. */
export async function readExportKey(file: string): Promise<KeyObject | null> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file} holds no Ed25519 key`);
  return key;
}

/**
 * The key in the data folder, made on first use. Several plane processes may share the folder
 * and start together: the new key is written whole under a name of its own (atomic-file) and
 * then linked to the one name, which fails when another process was first; then its key is read.
 * Everyone signs with the key on disk, never with one that lost the race.
 */
export async function loadOrCreateExportKey(dataDir: string): Promise<KeyObject> {
  const file = resolveInside(dataDir, EXPORT_KEY_FILE);
  const existing = await readExportKey(file);
  if (existing) return existing;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const mine = resolveInside(dataDir, `.${EXPORT_KEY_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  await writeFileAtomic(mine, pem, 0o600);
  try {
    await link(mine, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(mine).catch(() => {});
  }
  const key = await readExportKey(file);
  if (!key) throw new Error(`${file}: could not be created`);
  return key;
}

/** The public half as PEM SPKI (what `GET /api/v1/export-key` answers and `--key` reads). */
export function publicPem(key: KeyObject): string {
  return createPublicKey(key).export({ type: 'spki', format: 'pem' }) as string;
}

/** A verification key from PEM text: a public key (SPKI) as served, or the private key file itself. */
export function verificationKey(pem: string): KeyObject {
  const key = pem.includes('PRIVATE KEY') ? createPublicKey(createPrivateKey(pem)) : createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 key');
  return key;
}

/** The plane's signer: the key read (or made) once per process, on first use. */
export class ExportKey {
  private key: Promise<KeyObject> | null = null;

  constructor(private readonly dataDir: string) {}

  private load(): Promise<KeyObject> {
    // A failed load is tried again next time (a full disk freed), not remembered.
    this.key ??= loadOrCreateExportKey(this.dataDir).catch((err: unknown) => {
      this.key = null;
      throw err;
    });
    return this.key;
  }

  /** The base64 Ed25519 signature of `bytes`. */
  async sign(bytes: Uint8Array): Promise<string> {
    return sign(null, bytes, await this.load()).toString('base64');
  }

  async publicPem(): Promise<string> {
    return publicPem(await this.load());
  }
}
