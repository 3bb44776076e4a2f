import { scrypt as scryptCb, randomBytes, timingSafeEqual } from 'node:crypto';

// scrypt from node:crypto: no native addon to build, and the parameters travel in the hash
// so they can be raised later without invalidating stored passwords.
const N = 16384,
  R = 8,
  P = 1,
  KEYLEN = 32;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, KEYLEN, { N: n, r, p, maxmem: 256 * n * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash!, 'base64');
  const key = await scrypt(password, Buffer.from(salt!, 'base64'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash of a random password: unknown logins are checked against it so they cost the same time. */
export const dummyHashPromise: Promise<string> = hashPassword(randomBytes(12).toString('hex'));
