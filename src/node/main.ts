#!/usr/bin/env node
import { BUILD } from '../common/build-info.js';
import { buildNodeApp } from './app.js';
import {
  CliError,
  DEFAULT_CONFIG_FILE,
  USAGE,
  gateLine,
  licenseStatusCommand,
  loadConfig,
  metricsLine,
  validateCommand,
} from './cli.js';
import { trustedKeys } from './license/trusted-keys.js';

async function run(file: string): Promise<void> {
  const { text, config } = await loadConfig(file);
  const node = await buildNodeApp({ configPath: file, configText: text, config });
  const { log, gate, license, config: cfg } = node.services;
  log.info(
    {
      version: BUILD.version,
      git: BUILD.git,
      build_date: BUILD.build_date,
      pid: process.pid,
      config: file,
      epoch: cfg.epoch.epoch,
    },
    `argus-node ${BUILD.version} starting`,
  );
  log.info({ streams: config.streams.length }, `${config.streams.length} streams configured`);
  const g = gateLine(gate);
  log[g.level](g.msg);
  log.info(metricsLine(gate));
  log.info({ license: license.status().state }, license.line());
  const urls = await node.listen();
  log.info({ listeners: urls }, `listening on ${urls.join(', ')}`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: closing open recordings (up to 5 s)');
    node.stop().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Reload rereads the configuration and the licence; it never replaces the running program.
  process.on('SIGHUP', () => {
    node.services.config.reload().then(
      (r) =>
        log.info(
          { epoch: r.entry.epoch, changed: r.changed },
          r.changed ? 'configuration reloaded' : 'configuration unchanged',
        ),
      (err: unknown) =>
        log.error(
          { problems: (err as { extra?: { problems?: string[] } }).extra?.problems ?? [String(err)] },
          'reload refused: configuration invalid; the previous one stays applied',
        ),
    );
    license.load().then(
      () => log.info({ license: license.status().state }, license.line()),
      () => undefined,
    );
  });
}

async function main(argv: string[]): Promise<number> {
  const [cmd, arg, ...rest] = argv;
  if (cmd === '--validate' && arg && rest.length === 0) {
    process.stdout.write(`${await validateCommand(arg)}\n`);
    return 0;
  }
  if (cmd === '--license-status' && rest.length === 0) {
    const r = await licenseStatusCommand(arg ?? DEFAULT_CONFIG_FILE, BUILD, trustedKeys(BUILD.profile), Date.now());
    process.stdout.write(`${r.text}\n`);
    return r.code;
  }
  if (cmd === 'run' && arg && rest.length === 0) {
    await run(arg);
    return -1;
  }
  if (cmd === '--version') {
    process.stdout.write(`argus-node ${BUILD.version} (${BUILD.git}, built ${BUILD.build_date})\n`);
    return 0;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(
      `${err instanceof CliError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = err instanceof CliError ? err.exitCode : 1;
  },
);
