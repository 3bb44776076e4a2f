import { readFile } from 'node:fs/promises';
import type { KeyObject } from 'node:crypto';
import { ConfigError, parsePlaneConfig } from '../config/config.js';
import { resolveInside } from '../../common/resolve-inside.js';
import { scrubSecrets } from '../../common/log-scrub.js';
import { EXPORT_KEY_FILE, readExportKey, verificationKey } from './export-key.js';
import { verifyExport, type VerifyCode } from './verify.js';

/** The key to check with: `--key` (a public PEM as GET /api/v1/export-key serves it, or the private key file), else the configured plane's. */
async function keyFor(keyFile: string | undefined, configFile: string): Promise<KeyObject | string> {
  if (keyFile !== undefined) {
    try {
      return verificationKey(await readFile(keyFile, 'utf8'));
    } catch (err) {
      return `the key ${keyFile} cannot be read as an Ed25519 PEM key (${(err as Error).message.split('\n')[0]})`;
    }
  }
  let dataDir: string;
  try {
    dataDir = parsePlaneConfig({ text: await readFile(configFile, 'utf8'), configFile, env: process.env }).dataDir;
  } catch (err) {
    // A problem may quote a value (a URL with credentials): scrubbed as the serve command does.
    const why = err instanceof ConfigError ? err.problems.join('; ') : (err as Error).message.split('\n')[0];
    return `the plane's settings ${configFile} cannot be read (${scrubSecrets(why ?? '')}): give the key with --key`;
  }
  const file = resolveInside(dataDir, EXPORT_KEY_FILE);
  try {
    const key = await readExportKey(file);
    if (key) return verificationKey(key.export({ type: 'pkcs8', format: 'pem' }) as string);
    return `this plane has no export key yet (${file}): give the key with --key`;
  } catch (err) {
    return `the export key ${file} cannot be read (${(err as Error).message.split('\n')[0]})`;
  }
}

/**
 * `argus-plane verify-export FILE.zip [--key PEM_FILE] [--config FILE]` (document 4 §14): checks
 * an export zip without the network and prints one sentence. Exit 0 valid, 1 altered, 2
 * unreadable (also: no file named, or no key to check with).
 */
export async function verifyExportCommand(
  opts: { file: string | undefined; keyFile: string | undefined; configFile: string },
  out: NodeJS.WritableStream = process.stdout,
): Promise<VerifyCode> {
  if (opts.file === undefined) {
    out.write('argus-plane: verify-export needs the zip: argus-plane verify-export FILE.zip [--key PEM_FILE]\n');
    return 2;
  }
  const key = await keyFor(opts.keyFile, opts.configFile);
  if (typeof key === 'string') {
    out.write(`argus-plane: ${opts.file} not checked: ${key}.\n`);
    return 2;
  }
  const verdict = await verifyExport(opts.file, key);
  out.write(`${opts.file}: ${verdict.sentence}.\n`);
  return verdict.code;
}
