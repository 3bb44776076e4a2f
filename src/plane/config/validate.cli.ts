import { readFile } from 'node:fs/promises';
import { scrubSecrets } from '../../common/log-scrub.js';
import { ConfigError, parsePlaneConfig } from './config.js';

/**
 * `argus-plane validate [--config FILE]`: reads the settings as `serve` would (the file and the
 * environment) without opening anything, so that a new build can be checked against the settings in
 * use before it replaces the running one (the unit runs it before `serve`; docs/deployment.md).
 * Prints `FILE: OK (database, evidence)` and exits 0, or the problems and exits 2 like `serve`.
 */
export async function validateCommand(configFile: string, out = process.stdout, err = process.stderr): Promise<number> {
  let text: string;
  try {
    text = await readFile(configFile, 'utf8');
  } catch (e) {
    err.write(`argus-plane: ${configFile} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})\n`);
    return 2;
  }
  try {
    const c = parsePlaneConfig({ text, configFile, env: process.env });
    const database = c.database.kind === 'postgres' ? 'PostgreSQL server' : 'embedded database';
    const evidence = c.evidence.backend === 's3' ? 'evidence on s3' : 'evidence in a folder';
    out.write(`${configFile}: OK (${database}, ${evidence})\n`);
    return 0;
  } catch (e) {
    // A problem may quote a value (a public_url with credentials): scrubbed like every log line.
    if (!(e instanceof ConfigError)) throw e;
    err.write(`argus-plane: ${scrubSecrets(e.message)}\n`);
    return 2;
  }
}
