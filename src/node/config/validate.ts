import { isAbsolute, resolve } from 'node:path';
import { isIP } from 'node:net';
import { sourceAmbiguity } from '../../common/source-url.js';
import { parseStatements, type Statement } from './grammar.js';
import { NODE_SCHEMA } from './schema.js';
import {
  DEFAULT_DATA_DIR,
  DEFAULT_LISTEN,
  LOG_LEVELS,
  type AuthSettings,
  type Listen,
  type LogLevel,
  type NodeConfig,
  type StorageSettings,
  type StreamSettings,
} from './config.types.js';

/** All value errors of one file; `--validate` prints them joined by "; ". */
export class ConfigValueError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'ConfigValueError';
  }
}

export const STREAM_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
export const STREAM_INPUT_SCHEMES = ['rtsp:', 'rtmp:', 'http:', 'https:', 'file:', 'testsrc:'];
const RETENTION = /^[1-9][0-9]{0,6}[smhd]$/;

/**
 * Why `url` is not a source the node reads, or null when it is: a stream's `input` and a probe
 * (media/probe) are held to this one rule. A network source ffmpeg would read otherwise than a
 * URL parser is refused (issue 25, item 3); the reason only, never the URL (it may hold the
 * camera's password).
 */
export function inputProblem(url: string): string | null {
  if (!STREAM_INPUT_SCHEMES.some((p) => url.startsWith(p)))
    return 'must be an rtsp://, rtmp://, http(s)://, file:// or testsrc:// URL';
  const ambiguity = /^(?:rtsp|rtmp|https?):/.test(url) ? sourceAmbiguity(url) : null;
  return ambiguity === null ? null : `${ambiguity}, which URL parsers read differently`;
}
const STORAGE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const CLUSTER_ID = /^[A-Za-z0-9._-]{1,64}$/;
const MIN_TOKEN = 16;

export interface ParsedConfig {
  statements: Statement[];
  config: NodeConfig;
}

/** Parses and checks `text`; throws grammar.ts's ConfigParseError (first) or ConfigValueError (all). */
export function parseConfig(text: string, configDir: string): ParsedConfig {
  const statements = parseStatements(text, NODE_SCHEMA);
  const problems: string[] = [];
  const config = interpret(statements, configDir, problems);
  if (problems.length > 0) throw new ConfigValueError(problems);
  return { statements, config };
}

export function parseListen(value: string): Listen | null {
  const port = (s: string): number | null => (/^[0-9]{1,5}$/.test(s) && +s >= 1 && +s <= 65535 ? +s : null);
  const bare = port(value);
  if (bare !== null) return { host: DEFAULT_LISTEN.host, port: bare };
  const v6 = /^\[([0-9A-Fa-f:.]+)\]:([0-9]+)$/.exec(value);
  if (v6) {
    const p = port(v6[2]);
    return isIP(v6[1]) === 6 && p !== null ? { host: v6[1], port: p } : null;
  }
  const i = value.lastIndexOf(':');
  if (i <= 0) return null;
  const host = value.slice(0, i);
  const p = port(value.slice(i + 1));
  return isIP(host) === 4 && p !== null ? { host, port: p } : null;
}

export function isCidr(value: string): boolean {
  const [addr, bits, extra] = value.split('/');
  if (extra !== undefined) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^[0-9]{1,3}$/.test(bits)) return false;
  return +bits <= (family === 4 ? 32 : 128);
}

function interpret(statements: Statement[], configDir: string, problems: string[]): NodeConfig {
  const at = (st: Statement, msg: string): void => {
    problems.push(`line ${st.line}: ${msg}`);
  };
  const seen = new Map<string, Statement>();
  const once = (st: Statement, scope = ''): boolean => {
    const key = scope + st.name;
    const prev = seen.get(key);
    if (prev) {
      at(st, `duplicate "${st.name}"${scope ? ` in ${scope.slice(0, -1)}` : ''} (first on line ${prev.line})`);
      return false;
    }
    seen.set(key, st);
    return true;
  };

  const config: NodeConfig = {
    listen: [],
    auth: { admin_ip_bind: false },
    trusted_proxies: [],
    storages: [],
    data_dir: DEFAULT_DATA_DIR,
    log_level: 'info',
    streams: [],
  };
  const streamBlocks: Statement[] = [];

  for (const st of statements) {
    const arg0 = st.args[0]?.value ?? '';
    switch (st.name) {
      case 'http': {
        const listen = parseListen(arg0);
        if (!listen) at(st, `http expects a port or ip:port, got "${arg0}"`);
        else if (config.listen.some((l) => l.host === listen.host && l.port === listen.port))
          at(st, `duplicate http listener ${arg0}`);
        else config.listen.push(listen);
        break;
      }
      case 'auth':
        if (once(st)) config.auth = interpretAuth(st, at, once);
        break;
      case 'auth_backend': {
        if (!once(st)) break;
        const kids = st.children ?? [];
        if (kids.length !== 1) {
          at(st, 'auth_backend takes exactly one of "hs256 <secret>;" or "jwks <url>;"');
          break;
        }
        const k = kids[0];
        const v = k.args[0].value;
        if (k.name === 'hs256') {
          if (v.length < MIN_TOKEN) at(k, `auth_backend hs256 secret must be at least ${MIN_TOKEN} characters`);
          else config.auth_backend = { kind: 'hs256', secret: v };
        } else if (!/^https?:\/\/[^\s]+$/.test(v)) {
          at(k, 'auth_backend jwks expects an http:// or https:// URL');
        } else {
          config.auth_backend = { kind: 'jwks', url: v };
        }
        break;
      }
      case 'session_keys': {
        if (!once(st)) break;
        const secret = (st.children ?? []).find((c) => c.name === 'secret');
        if (!secret) at(st, 'session_keys needs "secret <value>;"');
        else if (secret.args[0].value.length < MIN_TOKEN)
          at(secret, `session_keys secret must be at least ${MIN_TOKEN} characters`);
        else config.session_keys = { secret: secret.args[0].value };
        break;
      }
      case 'trusted_proxies':
        if (!once(st)) break;
        for (const a of st.args) {
          if (isCidr(a.value)) config.trusted_proxies.push(a.value);
          else problems.push(`line ${a.line}: trusted_proxies: "${a.value}" is not an address or CIDR`);
        }
        break;
      case 'storage': {
        const s = interpretStorage(st, configDir, at);
        if (!s) break;
        if (config.storages.some((o) => o.name === s.name)) at(st, `duplicate storage "${s.name}"`);
        else config.storages.push(s);
        break;
      }
      case 'cluster_id':
        if (!once(st)) break;
        if (!CLUSTER_ID.test(arg0)) at(st, 'cluster_id must be 1 to 64 of A-Z a-z 0-9 . _ -');
        else config.cluster_id = arg0;
        break;
      case 'data_dir':
        if (!once(st)) break;
        if (arg0 === '') at(st, 'data_dir must not be empty');
        else config.data_dir = isAbsolute(arg0) ? arg0 : resolve(configDir, arg0);
        break;
      case 'log_level':
        if (!once(st)) break;
        if (!(LOG_LEVELS as readonly string[]).includes(arg0))
          at(st, `log_level must be one of ${LOG_LEVELS.join(', ')}`);
        else config.log_level = arg0 as LogLevel;
        break;
      case 'stream':
        streamBlocks.push(st);
        break;
    }
  }
  // Streams last: a `dvr` line may name a storage declared further down the file.
  for (const st of streamBlocks) {
    const s = interpretStream(st, config.storages, at);
    if (!s) continue;
    if (config.streams.some((o) => o.name === s.name)) at(st, `duplicate stream "${s.name}"`);
    else config.streams.push(s);
  }
  if (config.listen.length === 0) config.listen.push({ ...DEFAULT_LISTEN });
  return config;
}

type At = (st: Statement, msg: string) => void;

function interpretAuth(block: Statement, at: At, once: (st: Statement, scope?: string) => boolean): AuthSettings {
  const auth: AuthSettings = { admin_ip_bind: false };
  for (const st of block.children ?? []) {
    if (!once(st, 'auth.')) continue;
    const value = st.args[0]?.value;
    switch (st.name) {
      case 'admin_ip_bind':
        if (value === undefined || value === 'on') auth.admin_ip_bind = true;
        else if (value === 'off') auth.admin_ip_bind = false;
        else at(st, 'admin_ip_bind takes "on" or "off"');
        break;
      case 'admin_password':
      case 'session_secret':
        if (!value) at(st, `${st.name} must not be empty (omit it to leave it unset)`);
        else auth[st.name] = value;
        break;
      case 'api_read_token':
      case 'api_write_token':
        // Never echo the value: these messages reach logs and the --validate output.
        if (!value) at(st, `${st.name} must not be empty (omit it to leave the tier unconfigured)`);
        else if (value.length < MIN_TOKEN) at(st, `${st.name} must be at least ${MIN_TOKEN} characters`);
        else if (!/^[\x21-\x7e]+$/.test(value))
          at(st, `${st.name} must consist of visible ASCII characters (it travels in an Authorization header)`);
        else auth[st.name] = value;
        break;
    }
  }
  if (auth.api_read_token !== undefined && auth.api_read_token === auth.api_write_token) {
    at(block, 'api_read_token and api_write_token must differ (an equal pair would grant write to the read token)');
    delete auth.api_read_token;
    delete auth.api_write_token;
  }
  return auth;
}

function interpretStorage(st: Statement, configDir: string, at: At): StorageSettings | null {
  const [name, path, key, size] = st.args.map((a) => a.value);
  let ok = true;
  if (!STORAGE_NAME.test(name)) {
    at(st, 'storage name must be 1 to 64 of A-Z a-z 0-9 _ -');
    ok = false;
  }
  if (path === '') {
    at(st, 'storage path must not be empty');
    ok = false;
  }
  const s: StorageSettings = { name, path: isAbsolute(path) ? path : resolve(configDir, path) };
  if (st.args.length === 3) {
    at(st, 'storage takes "<name> <path> [max_bytes <n>]"');
    ok = false;
  }
  if (st.args.length === 4) {
    if (key !== 'max_bytes') {
      at(st, `storage: unknown option "${key}" (expected max_bytes)`);
      ok = false;
    } else if (!/^[1-9][0-9]{0,17}$/.test(size)) {
      at(st, 'storage max_bytes must be a positive integer');
      ok = false;
    } else s.max_bytes = Number(size);
  }
  return ok ? s : null;
}

function interpretStream(st: Statement, storages: StorageSettings[], at: At): StreamSettings | null {
  const name = st.args[0].value;
  let ok = true;
  if (!STREAM_NAME.test(name)) {
    at(st, 'stream name must start with a letter or digit and use only A-Z a-z 0-9 _ . - (up to 128)');
    ok = false;
  }
  const s: StreamSettings = { name, on_demand: false };
  const local = new Set<string>();
  for (const c of st.children ?? []) {
    if (local.has(c.name)) {
      at(c, `duplicate "${c.name}" in stream ${name}`);
      ok = false;
      continue;
    }
    local.add(c.name);
    if (c.name === 'on_demand') s.on_demand = true;
    if (c.name === 'input') {
      const url = c.args[0].value;
      const problem = inputProblem(url);
      if (problem !== null) {
        at(c, `stream ${name}: input ${problem}`);
        ok = false;
      } else s.input = url;
    }
    if (c.name === 'dvr') {
      const [storage, retention] = c.args.map((a) => a.value);
      if (!storages.some((o) => o.name === storage)) {
        at(c, `stream ${name}: dvr names unknown storage "${storage}"`);
        ok = false;
      }
      if (!RETENTION.test(retention)) {
        at(c, `stream ${name}: dvr retention must look like 90s, 30m, 12h or 7d`);
        ok = false;
      }
      s.dvr = { storage, retention };
    }
  }
  if (s.input === undefined && ok) {
    at(st, `stream ${name} needs "input <url>;"`);
    ok = false;
  }
  return ok ? s : null;
}
