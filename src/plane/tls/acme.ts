import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { Agent } from 'node:https';
import { join } from 'node:path';
import * as acme from 'acme-client';
import { writeFileAtomic } from '../../common/atomic-file.js';
import type { KeyPair, TlsOptions } from './tls.types.js';

const CHALLENGE_PATH = '/.well-known/acme-challenge/';

/** host:port of acme_listen as node:http wants it ([::1]:80 -> ::1, 80). */
function listenOf(text: string): { host: string; port: number } {
  const m = /^(.+):(\d+)$/.exec(text)!;
  return { host: m[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(m[2]) };
}

/**
 * Obtains a certificate for `hosts` from the ACME directory (document 4 §10): the account key is
 * made once and kept in store_dir (0600); the http-01 challenges are answered by a small HTTP
 * server on `acme_listen` while the order runs, and only there. `acme_ca_file` is the CA to trust
 * for a private directory (a test's pebble, a company's step-ca); absent: the system's.
 */
export async function obtain(o: TlsOptions): Promise<KeyPair> {
  if (o.acmeCaFile) acme.axios.defaults.httpsAgent = new Agent({ ca: await readFile(o.acmeCaFile, 'utf8') });
  await mkdir(o.storeDir, { recursive: true, mode: 0o700 });
  const accountFile = join(o.storeDir, 'acme-account.key');
  let accountKey: string;
  if (existsSync(accountFile)) accountKey = await readFile(accountFile, 'utf8');
  else {
    accountKey = (await acme.crypto.createPrivateEcdsaKey()).toString();
    await writeFileAtomic(accountFile, accountKey, 0o600);
  }
  const client = new acme.Client({
    directoryUrl: o.acmeDirectoryUrl,
    accountKey,
    backoffAttempts: 10,
    backoffMin: 200,
    backoffMax: 2000,
  });
  const [key, csr] = await acme.crypto.createCsr(
    { commonName: o.hosts[0]!, altNames: o.hosts },
    await acme.crypto.createPrivateEcdsaKey(),
  );
  const answers = new Map<string, string>();
  const responder: Server = createServer((req, res) => {
    const token = req.url?.startsWith(CHALLENGE_PATH) ? req.url.slice(CHALLENGE_PATH.length) : '';
    const answer = answers.get(token);
    res.writeHead(answer ? 200 : 404, { 'content-type': 'text/plain' }).end(answer ?? 'not found');
  });
  const { host, port } = listenOf(o.acmeListen!);
  await new Promise<void>((resolve, reject) => {
    responder.once('error', reject);
    responder.listen(port, host, () => resolve());
  });
  try {
    const cert = await client.auto({
      csr,
      email: o.acmeContact?.replace(/^mailto:/, '') ?? undefined,
      termsOfServiceAgreed: true,
      challengePriority: ['http-01'],
      // acme-client would fetch the answer from port 80 itself first; the directory's own validation is what counts.
      skipChallengeVerification: true,
      challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
        answers.set(challenge.token, keyAuthorization);
      },
      challengeRemoveFn: async (_authz, challenge) => {
        answers.delete(challenge.token);
      },
    });
    return { cert, key: key.toString() };
  } finally {
    await new Promise<void>((resolve) => responder.close(() => resolve()));
  }
}
