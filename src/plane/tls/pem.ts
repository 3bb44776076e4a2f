import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { KeyPair } from './tls.types.js';

/** Why a pem pair cannot be served: for the operator (a path and what is wrong with it; never the key's bytes). */
export class PemProblem extends Error {}

const readable = async (what: string, path: string): Promise<string> => {
  if (!isAbsolute(path)) throw new PemProblem(`tls.${what} must be an absolute path`);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new PemProblem(`tls.${what} ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text)) throw new PemProblem(`tls.${what} ${path} is not PEM`);
  return text;
};

/**
 * The certificate and key files of `pem` mode, read and proven to make a pair a TLS server
 * accepts (issue 25: a plane given an unreadable or non-PEM file started, logged and exited 0).
 * Used at start (a problem there is a configuration problem: exit 2) and when the settings are
 * saved (400 with the text).
 */
export async function readPemPair(cert: string, key: string): Promise<KeyPair> {
  const pair = { cert: await readable('cert', cert), key: await readable('key', key) };
  try {
    createSecureContext(pair); // a pair that does not match throws here, not at the first handshake
  } catch (err) {
    throw new PemProblem(
      `tls.cert and tls.key do not make a usable pair (${(err as Error).message.replace(/^error:[0-9A-F]+:/, '').slice(0, 120)})`,
    );
  }
  return pair;
}
