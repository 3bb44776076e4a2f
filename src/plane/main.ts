#!/usr/bin/env node
import { readFile, mkdir, chmod } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { writeFileAtomic, removeOrphanTempFiles } from '../common/atomic-file.js';
import { systemClock } from '../common/clock.js';
import { scrubSecrets } from '../common/log-scrub.js';
import {
  ConfigError,
  DEFAULT_PLANE_TOML,
  configPathFrom,
  parsePlaneConfig,
  type PlaneConfig,
} from './config/config.js';
import { openDatabase } from './db/database.js';
import { buildApp, makeLogger } from './app.js';
import { loadOrCreateSecretKey } from './crypto/secret-box.js';

const USAGE =
  'usage: argus-plane serve [--config FILE]\n       argus-plane validate [--config FILE]   check the settings (file and environment) without starting\n       argus-plane evidence migrate [--config FILE]   move the retired evidence storage into the one in use\n       argus-plane verify-export FILE.zip [--key PEM_FILE] [--config FILE]   check an export offline: exit 0 valid, 1 altered, 2 unreadable';

/** Without ARGUS_BOOTSTRAP_*: a superadmin password generated once and kept (0600) in the data dir. */
async function localBootstrap(dataDir: string): Promise<{ login: string; password: string }> {
  const file = join(dataDir, 'bootstrap-login.json');
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8'));
  const creds = { login: 'admin', password: randomBytes(12).toString('base64url') };
  await writeFileAtomic(file, JSON.stringify(creds) + '\n', 0o600);
  await chmod(file, 0o600);
  return creds;
}

async function serve(configArg: string | undefined): Promise<void> {
  const configFile = configPathFrom(configArg);
  await mkdir(dirname(configFile), { recursive: true });
  await removeOrphanTempFiles(dirname(configFile));
  if (!existsSync(configFile)) await writeFileAtomic(configFile, DEFAULT_PLANE_TOML, 0o600);

  let config: PlaneConfig;
  try {
    config = parsePlaneConfig({ text: await readFile(configFile, 'utf8'), configFile, env: process.env });
  } catch (err) {
    // A problem may quote a value (a public_url with credentials): scrubbed like every log line.
    if (err instanceof ConfigError) {
      process.stderr.write(`argus-plane: ${scrubSecrets(err.message)}\n`);
      process.exit(2);
    }
    throw err;
  }
  const printed = config.bootstrap ?? (await localBootstrap(config.dataDir));
  config = { ...config, bootstrap: printed };

  const log = makeLogger(config.logLevel);
  // A pool or socket error must never end the process: log it and keep serving (503 meanwhile).
  process.on('unhandledRejection', (err) => log.error({ err: String(err) }, 'unhandled rejection'));
  process.on('uncaughtException', (err) => log.error({ err: err.message, stack: err.stack }, 'uncaught exception'));

  const database = await openDatabase(
    config.database.kind === 'postgres'
      ? { kind: 'postgres', url: config.database.url, read: config.database.read, clock: systemClock }
      : { kind: 'pglite', dir: config.database.dir },
  );
  const secretKey = await loadOrCreateSecretKey(config.dataDir);
  let plane: Awaited<ReturnType<typeof buildApp>>;
  try {
    plane = await buildApp({ config, database, clock: systemClock, secretKey, logger: log });
  } catch (err) {
    // What only the start can find (a certificate file, the evidence folder) is a configuration problem too: exit 2.
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`argus-plane: ${scrubSecrets(err.message)}\n`);
    await database.close().catch(() => {});
    process.exit(2);
  }
  await plane.app.listen({ host: config.listen.host, port: config.listen.port });
  const where =
    config.database.kind === 'postgres' ? 'PostgreSQL server' : `embedded database in ${config.database.dir}`;
  process.stdout.write(`argus-plane: listening on ${config.publicUrl} (${where})\n`);
  if (!process.env.ARGUS_BOOTSTRAP_PASSWORD) {
    process.stdout.write(
      `argus-plane: bootstrap login "${printed.login}", password "${printed.password}" (kept in ${join(config.dataDir, 'bootstrap-login.json')})\n`,
    );
  }
  void plane.ready().then(() => process.stdout.write('argus-plane: database ready\n'));

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await plane.close().catch(() => {});
    await database.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { config: { type: 'string' }, key: { type: 'string' }, help: { type: 'boolean' } },
});
if (values.help) {
  process.stdout.write(USAGE + '\n');
  process.exit(0);
}
const command = positionals[0] ?? 'serve';
if (command === 'evidence' && positionals[1] === 'migrate') {
  const { evidenceMigrateCommand } = await import('./evidence/migrate.cli.js');
  process.exit(await evidenceMigrateCommand(configPathFrom(values.config)));
}
if (command === 'validate') {
  const { validateCommand } = await import('./config/validate.cli.js');
  process.exit(await validateCommand(configPathFrom(values.config)));
}
if (command === 'verify-export') {
  const { verifyExportCommand } = await import('./exports/verify-export.cli.js');
  const file = positionals[1];
  process.exit(await verifyExportCommand({ file, keyFile: values.key, configFile: configPathFrom(values.config) }));
}
if (command !== 'serve') {
  process.stderr.write(USAGE + '\n');
  process.exit(2);
}
await serve(values.config);
