import { createHash, createHmac, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

/** SHA-256 is enough for static tokens: they are long random strings, not guessable words. */
export function tokenFingerprint(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function sameFingerprint(a: Buffer, b: Buffer | undefined): boolean {
  return b !== undefined && a.length === b.length && timingSafeEqual(a, b);
}

export interface PasswordFingerprint {
  salt: Buffer;
  hash: Buffer;
}

/** The password is a human choice, so it gets a salted, slow hash rather than plain SHA-256. */
export function passwordFingerprint(password: string): PasswordFingerprint {
  const salt = randomBytes(16);
  return { salt, hash: scryptSync(password, salt, 32) };
}

export function passwordMatches(candidate: string, fp: PasswordFingerprint): Promise<boolean> {
  return new Promise((resolve, reject) => {
    scrypt(candidate, fp.salt, 32, (err, derived) => (err ? reject(err) : resolve(timingSafeEqual(derived, fp.hash))));
  });
}

/** Separate keys per purpose from one secret, so a session key can never verify a grant. */
export function deriveKey(secret: string | Buffer, purpose: string): Uint8Array {
  return new Uint8Array(createHmac('sha256', secret).update(`argus-node:${purpose}`).digest());
}
