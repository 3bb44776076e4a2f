import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BuildInfo } from '../common/build-info.js';
import type { NodeConfig } from './config/config.types.js';
import { ConfigParseError } from './config/grammar.js';
import { ConfigValueError, parseConfig } from './config/validate.js';
import { evaluateLicense } from './license/license.js';
import { LICENSE_FILE } from './license/license.service.js';
import type { Gate } from './gate/gate.service.js';

export const DEFAULT_CONFIG_FILE = '/etc/argus-node/argus-node.conf';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Reads and checks a configuration file; the error text is what `--validate` prints. */
export async function loadConfig(file: string): Promise<{ text: string; config: NodeConfig }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return { text, config: parseConfig(text, dirname(file)).config };
  } catch (err) {
    if (err instanceof ConfigParseError || err instanceof ConfigValueError)
      throw new CliError(`${file}: ${err.message}`);
    throw err;
  }
}

export async function validateCommand(file: string): Promise<string> {
  const { config } = await loadConfig(file);
  return `${file}: OK (${config.streams.length} streams)`;
}

export async function licenseStatusCommand(
  configFile: string,
  build: BuildInfo,
  keys: string[],
  now: number,
): Promise<{ text: string; code: number }> {
  const path = join(dirname(configFile), LICENSE_FILE);
  let content: string | null = null;
  try {
    content = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new CliError(`${path}: cannot read: ${(err as NodeJS.ErrnoException).code}`);
  }
  const s = evaluateLicense(content, { now, buildDate: build.build_date, keys });
  const lines = [`License file: ${path}${content === null ? ' (absent)' : ''}`];
  if (s.state === null) {
    lines.push('State: none (no licence signal; the node serves)', 'Expires: none', 'Updates until: none');
  } else {
    lines.push(`State: ${s.state}`);
    if (s.licensee !== undefined) lines.push(`Licensee: ${s.licensee}`, `Nodes: ${s.nodes}`);
    lines.push(`Expires: ${s.expires ?? 'unknown'}`, `Updates until: ${s.updates_until ?? 'unknown'}`);
    if (s.grace_until) lines.push(`Grace until: ${s.grace_until}`);
    if (s.refusal) lines.push(`Media: refused (${s.refusal.message})`);
  }
  lines.push(`Build: ${build.version} (${build.git}), built ${build.build_date}`);
  return { text: lines.join('\n'), code: s.state === 'unlicensed' ? 1 : 0 };
}

/** Start-up output: exactly one line about the gate. */
export function gateLine(gate: Gate): { level: 'warn' | 'info'; msg: string } {
  if (!gate.enabled) {
    return {
      level: 'warn',
      msg: 'management gate OPEN: no admin_password, api_read_token or api_write_token is set; the panel and /api/v1 are unauthenticated',
    };
  }
  if (!gate.hasPassword) {
    return {
      level: 'info',
      msg: 'management gate: static API tokens only (no admin_password); the panel login does not exist and POST /api/v1/auth/login answers 404',
    };
  }
  const parts = ['administrator password'];
  if (gate.hasStaticTokens) parts.push('static API tokens');
  const persist = gate.persistentSessions
    ? 'sessions survive restarts (session_secret set)'
    : 'sessions end at restart (no session_secret)';
  return { level: 'info', msg: `management gate: closed by ${parts.join(' and ')}; ${persist}` };
}

/** Start-up output: exactly one line about `/metrics`. */
export function metricsLine(gate: Gate): string {
  const head = '/metrics is closed (since build 2026.08)';
  if (gate.hasStaticTokens)
    return `${head}: it accepts Authorization: Bearer with the read token, the write token or an administrator session token`;
  if (gate.hasPassword) return `${head}: no static tokens are set, so it accepts only an administrator session bearer`;
  return `${head}: no credential is configured, so every request answers 401`;
}

export const USAGE = `usage:
  argus-node run CONFIG_FILE            start the node
  argus-node --validate CONFIG_FILE     check a configuration file
  argus-node --license-status [CONFIG_FILE]
                                        print the licence state (license.json beside the configuration;
                                        default configuration ${DEFAULT_CONFIG_FILE})
  argus-node --version`;
