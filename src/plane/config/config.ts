import { parse as parseToml } from 'smol-toml';
import { HTTP_LIMITS, type HttpLimits } from '../http/limits.js';
import { parseTrustedProxies } from '../http/trusted-proxies.js';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { TlsOptions } from '../tls/tls.types.js';
import type { S3Options } from '../evidence/s3.storage.js';
import { isIP } from 'node:net';
import { refusedEvidenceDir } from './evidence-dir.js';
import { isRefusedEndpoint } from './endpoint-guard.js';
import { lengthProblems } from './lengths.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface PlaneConfig {
  /** The folder of plane.toml: the embedded database, the secret key file and evidence default live here. */
  dataDir: string;
  configFile: string | null;
  database: { kind: 'postgres'; url: string; source: 'DATABASE_URL' | 'plane.toml' } | { kind: 'pglite'; dir: string | null };
  listen: { host: string; port: number };
  publicUrl: string;
  logLevel: LogLevel;
  logLevelSource: 'file' | 'environment';
  /** The environment variable that owns the level (RUST_LOG wins over its alias ARGUS_LOG); null: the file does. */
  logLevelEnv: 'RUST_LOG' | 'ARGUS_LOG' | null;
  /** [events] purge_record_retention_days: how long tombstones and purged-attachment records answer 410 (docs/logs.md). */
  purgeRecordRetentionDays: number;
  bootstrap: { login: string; password: string } | null;
  dvrExportMaxSecs: number;
  moduleRateLimitDefault: number;
  /**
   * [evidence_storage]: where attachment bytes live: a folder (`local`, `dir`) or a bucket (`s3`);
   * `retired`, [evidence_storage_retired]: the storage a settings change moved away from, still
   * read until `argus-plane evidence migrate` has emptied it (document 4 §10).
   */
  evidence: EvidenceLocation & { retired?: EvidenceLocation | null };
  /**
   * [evidence_storage] watermarks (1 <= low < high < critical <= 99, document 1) and max_bytes:
   * used_percent is measured against max_bytes when set, else against the volume (statfs).
   */
  evidencePressure: { lowPercent: number; highPercent: number; criticalPercent: number; maxBytes: number | null;
    /** `oldest_purge_day`: whole oldest days of events go at the high watermark until below the low one */
    volumeRetention?: 'disabled' | 'oldest_purge_day' };
  /**
   * [sweeper]: whether this process polls nodes and watches the evidence storage (`enabled`), how
   * often, the poll time-out, and how many polls run at once.
   */
  sweeper: { enabled: boolean; intervalMs: number; timeoutMs: number; concurrency: number };
  sessionTtlSecs: number;
  live: { globalCapacity: number; perPrincipal: number; heartbeatMs: number; ringSize: number; lagBytes: number };
  /** Failed logins allowed per login and per address inside the window before 429. */
  loginThrottle: { attempts: number; windowSecs: number };
  /** Header, body and idle time-outs of the HTTP server and the shutdown drain (not in plane.toml). */
  http: HttpLimits;
  /** [network] trusted_proxies: addresses and CIDRs whose X-Forwarded-For is believed; empty: none. */
  trustedProxies: string[];
  /** [network] allow_private_targets: node URLs and camera sources may name link-local and cloud-metadata addresses. */
  allowPrivateTargets: boolean;
  /** [network.tls]: how the plane serves HTTPS (src/plane/tls/, docs/tls.md). */
  tls: TlsOptions;
}

/** Where evidence bytes live: a folder or a bucket. */
export interface EvidenceLocation { backend: 'local' | 's3'; dir: string; s3?: S3Options | null }

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`configuration has ${problems.length} problem(s):\n  - ${problems.join('\n  - ')}`);
  }
}

export const DEFAULT_PLANE_TOML = `# Argus control plane settings. GET/PATCH /api/v1/settings/plane edit this file;
# hand edits are kept (comments and foreign lines too).

# Longest archive export, seconds (60..86400).
dvr_export_max_secs = 3600

# [database]
# url = "postgres://user@127.0.0.1/argus"   # absent: embedded database under this folder (db/)

[network]
public_url = "http://127.0.0.1:8080"
listen = "127.0.0.1:8080"
# trusted_proxies = ["127.0.0.1"]  # reverse proxies whose X-Forwarded-For is believed (addresses, CIDRs)
# allow_private_targets = false   # true: node URLs and camera sources may name link-local/metadata addresses

[network.tls]
mode = "off"            # off | external | pem | self_signed | acme (docs/tls.md)
# cert = "/etc/argus/cert.pem"      # pem: the certificate and its key, re-read when they change
# key = "/etc/argus/key.pem"
# hosts = ["cams.example.org"]      # self_signed: the names the certificate covers (the public URL's host among them)
# store_dir = "/var/lib/argus/tls"  # self_signed, acme: where they are kept (absent: tls/ under this folder)
# acme_contact = "ops@example.org"  # acme: the account's e-mail; acme_listen = "0.0.0.0:80" answers http-01

[logging]
minimum_level = "info"  # debug | info | warn | error; RUST_LOG or ARGUS_LOG in the environment wins

[evidence_storage]
backend = "local"
# dir = "/var/lib/argus/evidence"   # absent: evidence/ under this folder
low_watermark_percent = 70        # 1 <= low < high < critical <= 99: a system.evidence_storage_pressure
high_watermark_percent = 85       # event when used_percent crosses one upward
critical_watermark_percent = 95
# max_bytes = 100000000000        # absent: used_percent of the volume that holds dir
volume_retention = "disabled"     # "oldest_purge_day": at the high watermark whole oldest days of events go, down to the low one

[events]
module_rate_limit_default = 200   # events per second for a module token whose rate_limit is null
# purge_record_retention_days = 30  # purged events and attachments answer 410 this long, then 404 (1..3650)

[sweeper]
enabled = true                    # false: this process neither polls nodes nor watches the evidence storage
interval_secs = 5                 # every enabled node is polled this often (1..3600)
timeout_secs = 2                  # a node that has not answered by then is unreachable (1..60, below interval_secs)
concurrency = 16                  # polls in flight at once (1..256)
`;

const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];

/**
 * plane.toml as the spec declares it. Parsed TOML is not checked against this type (a user can
 * write anything), which is why every value is validated below before it is used.
 */
interface PlaneToml {
  dvr_export_max_secs?: number;
  database?: { url?: unknown };
  network?: { listen?: unknown; public_url?: unknown; trusted_proxies?: unknown; allow_private_targets?: unknown; tls?: Record<string, unknown> };
  logging?: { minimum_level?: unknown };
  events?: { module_rate_limit_default?: number; purge_record_retention_days?: number };
  evidence_storage?: {
    backend?: unknown; dir?: unknown; max_bytes?: number | null;
    endpoint?: unknown; bucket?: unknown; region?: unknown; https?: unknown; addressing?: unknown; access_key?: unknown; secret_key?: unknown;
    low_watermark_percent?: number; high_watermark_percent?: number; critical_watermark_percent?: number; volume_retention?: unknown;
  };
  evidence_storage_retired?: Record<string, unknown>;
  sweeper?: { enabled?: boolean; interval_secs?: number; timeout_secs?: number; concurrency?: number };
}

/** Parses plane.toml text plus the environment; every problem is collected, then thrown together. */
export function parsePlaneConfig(opts: {
  text: string;
  configFile: string | null;
  env: Record<string, string | undefined>;
  dataDir?: string;
}): PlaneConfig {
  const problems: string[] = [];
  let doc: PlaneToml;
  try {
    doc = parseToml(opts.text) as PlaneToml;
  } catch (err) {
    throw new ConfigError([`${opts.configFile ?? 'plane.toml'}: ${(err as Error).message.split('\n')[0]}`]);
  }
  const dataDir = opts.dataDir ?? (opts.configFile ? dirname(resolve(opts.configFile)) : resolve('data'));
  const env = opts.env;
  // Lengths first: a value past its limit is reported once, here, whatever else is wrong with it.
  problems.push(...lengthProblems(doc as Record<string, unknown>));

  const dvr = doc.dvr_export_max_secs ?? 3600;
  if (!Number.isInteger(dvr) || dvr < 60 || dvr > 86400) problems.push('dvr_export_max_secs must be an integer in 60..86400');

  let database: PlaneConfig['database'] = { kind: 'pglite', dir: join(dataDir, 'db') };
  const fileUrl = doc.database?.url;
  if (fileUrl !== undefined && typeof fileUrl !== 'string') problems.push('[database] url must be a string');
  const url = env.DATABASE_URL || (typeof fileUrl === 'string' ? fileUrl : '');
  if (url) {
    if (!/^postgres(ql)?:\/\//.test(url)) problems.push('database url must start with postgres://');
    else database = { kind: 'postgres', url, source: env.DATABASE_URL ? 'DATABASE_URL' : 'plane.toml' };
  }

  const listenText = String(doc.network?.listen ?? '127.0.0.1:8080');
  const listen = parseListen(listenText);
  if (!listen) problems.push(`[network] listen must be IP:port, got "${listenText}"`);
  const publicUrl = String(doc.network?.public_url ?? `http://${listenText}`);
  // A public URL derived from a broken listen value is not a second problem.
  if (listen || doc.network?.public_url !== undefined) {
    try { new URL(publicUrl); } catch { problems.push(`[network] public_url is not a URL: "${publicUrl}"`); }
  }
  const trustedProxies = parseTrustedProxies(doc.network?.trusted_proxies, problems);
  const allowPrivateTargets = doc.network?.allow_private_targets ?? false;
  if (typeof allowPrivateTargets !== 'boolean') problems.push('[network] allow_private_targets must be true or false');

  const tls = parseTls(doc.network?.tls ?? {}, dataDir, publicUrl, problems);
  // external: a proxy on this machine terminates TLS; its X-Forwarded-* are believed (document 4 §10)
  if (tls.mode === 'external' && !trustedProxies.length) trustedProxies.push('127.0.0.1', '::1');

  const logLevelEnv: PlaneConfig['logLevelEnv'] = env.RUST_LOG?.trim() ? 'RUST_LOG' : env.ARGUS_LOG?.trim() ? 'ARGUS_LOG' : null;
  const envLevel = logLevelEnv ? envLogLevel(env[logLevelEnv]!) : '';
  const fileLevel = String(doc.logging?.minimum_level ?? 'info');
  if (!LEVELS.includes(fileLevel as LogLevel)) problems.push(`[logging] minimum_level must be one of ${LEVELS.join(', ')}`);
  let logLevel = fileLevel as LogLevel;
  let logLevelSource: PlaneConfig['logLevelSource'] = 'file';
  if (logLevelEnv) {
    if (LEVELS.includes(envLevel as LogLevel)) { logLevel = envLevel as LogLevel; logLevelSource = 'environment'; }
    else problems.push(`RUST_LOG/ARGUS_LOG must be one of ${LEVELS.join(', ')}`);
  }

  const purgeDays = doc.events?.purge_record_retention_days ?? 30;
  if (!Number.isInteger(purgeDays) || purgeDays < 1 || purgeDays > 3650) problems.push('[events] purge_record_retention_days must be an integer in 1..3650');

  const rate = doc.events?.module_rate_limit_default ?? 200;
  if (!Number.isInteger(rate) || rate < 1) problems.push('[events] module_rate_limit_default must be an integer >= 1');

  const evBackend = doc.evidence_storage?.backend ?? 'local';
  if (evBackend !== 'local' && evBackend !== 's3') problems.push('[evidence_storage] backend must be "local" or "s3"');
  const privateOk = allowPrivateTargets === true;
  const s3 = evBackend === 's3' ? parseS3(doc.evidence_storage ?? {}, problems, 'evidence_storage', privateOk) : null;
  const evDir = doc.evidence_storage?.dir ?? join(dataDir, 'evidence');
  if (typeof evDir !== 'string' || !evDir) problems.push('[evidence_storage] dir must be a non-empty string');
  // A folder the plane would list and empty must be its own (issue 25); its content is checked at start.
  const refusedDir = evBackend === 'local' && typeof evDir === 'string' && evDir ? refusedEvidenceDir(resolve(dataDir, evDir), dataDir) : null;
  if (refusedDir) problems.push(`[evidence_storage] dir: ${refusedDir}; give the evidence a folder of its own`);

  const ev = doc.evidence_storage ?? {};
  const low = ev.low_watermark_percent ?? 70, high = ev.high_watermark_percent ?? 85, critical = ev.critical_watermark_percent ?? 95;
  const marks: Array<[string, unknown]> = [['low_watermark_percent', low], ['high_watermark_percent', high], ['critical_watermark_percent', critical]];
  const badMarks = marks.filter(([, v]) => !Number.isInteger(v) || (v as number) < 1 || (v as number) > 99);
  for (const [k] of badMarks) problems.push(`[evidence_storage] ${k} must be an integer in 1..99`);
  if (!badMarks.length && !(low < high && high < critical)) problems.push('[evidence_storage] watermarks must satisfy low < high < critical');
  const maxBytes = ev.max_bytes ?? null;
  if (maxBytes !== null && (!Number.isSafeInteger(maxBytes) || maxBytes < 1)) problems.push('[evidence_storage] max_bytes must be an integer >= 1');
  // A bucket has no free-space call: its capacity is max_bytes (document 1).
  if (evBackend === 's3' && maxBytes === null) problems.push('[evidence_storage] max_bytes is required with backend s3');
  const volumeRetention = ev.volume_retention ?? 'disabled';
  if (volumeRetention !== 'disabled' && volumeRetention !== 'oldest_purge_day') problems.push('[evidence_storage] volume_retention must be "disabled" or "oldest_purge_day"');
  const retired = doc.evidence_storage_retired ? parseRetired(doc.evidence_storage_retired, dataDir, problems, privateOk) : null;

  const sw = doc.sweeper ?? {};
  const interval = sw.interval_secs ?? 5, timeout = sw.timeout_secs ?? 2, concurrency = sw.concurrency ?? 16;
  const intervalOk = Number.isInteger(interval) && interval >= 1 && interval <= 3600;
  if (!intervalOk) problems.push('[sweeper] interval_secs must be an integer in 1..3600');
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 60) problems.push('[sweeper] timeout_secs must be an integer in 1..60');
  else if (intervalOk && timeout >= interval) problems.push('[sweeper] timeout_secs must be below interval_secs');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) problems.push('[sweeper] concurrency must be an integer in 1..256');
  const sweeperEnabled = sw.enabled ?? true;
  if (typeof sweeperEnabled !== 'boolean') problems.push('[sweeper] enabled must be true or false');

  let bootstrap: PlaneConfig['bootstrap'] = null;
  const bl = env.ARGUS_BOOTSTRAP_LOGIN, bp = env.ARGUS_BOOTSTRAP_PASSWORD;
  if (bl || bp) {
    if (!bl || !bp) problems.push('ARGUS_BOOTSTRAP_LOGIN and ARGUS_BOOTSTRAP_PASSWORD are set together');
    else if (bp.length < 8) problems.push('ARGUS_BOOTSTRAP_PASSWORD must have at least 8 characters');
    else bootstrap = { login: bl, password: bp };
  }

  if (problems.length) throw new ConfigError(problems);
  return {
    dataDir,
    configFile: opts.configFile,
    database,
    listen: listen!,
    publicUrl,
    logLevel,
    logLevelSource,
    logLevelEnv: logLevelSource === 'environment' ? logLevelEnv : null,
    purgeRecordRetentionDays: purgeDays,
    bootstrap,
    dvrExportMaxSecs: dvr,
    moduleRateLimitDefault: rate,
    evidence: { backend: evBackend === 's3' ? 's3' : 'local', dir: resolve(dataDir, String(evDir)), s3, retired },
    evidencePressure: { lowPercent: low, highPercent: high, criticalPercent: critical, maxBytes, volumeRetention: volumeRetention === 'oldest_purge_day' ? 'oldest_purge_day' : 'disabled' },
    sweeper: { enabled: sweeperEnabled, intervalMs: interval * 1000, timeoutMs: timeout * 1000, concurrency },
    sessionTtlSecs: 12 * 3600,
    live: { globalCapacity: 1024, perPrincipal: 32, heartbeatMs: 15_000, ringSize: 8192, lagBytes: 1 << 20 },
    loginThrottle: { attempts: 5, windowSecs: 300 },
    http: HTTP_LIMITS,
    trustedProxies,
    allowPrivateTargets: allowPrivateTargets === true,
    tls,
  };
}

/** [evidence_storage_retired]: the location keys of a storage being retired (written by the settings PATCH). */
function parseRetired(e: Record<string, unknown>, dataDir: string, problems: string[], privateOk: boolean): EvidenceLocation | null {
  if (e.backend === 's3') return { backend: 's3', dir: '', s3: parseS3(e, problems, 'evidence_storage_retired', privateOk) };
  if (e.backend === 'local' && typeof e.dir === 'string' && e.dir) return { backend: 'local', dir: resolve(dataDir, e.dir), s3: null };
  problems.push('[evidence_storage_retired] needs backend "s3", or backend "local" with a dir');
  return null;
}

/** The keys of an s3 backend in `section` (document 1): endpoint host[:port] without scheme, the key pair together. */
function parseS3(e: Record<string, unknown>, problems: string[], section: string, privateOk: boolean): S3Options {
  const str = (k: string, required: boolean): string | null => {
    if (e[k] === undefined) { if (required) problems.push(`[${section}] ${k} is required with backend s3`); return null; }
    if (typeof e[k] === 'string' && e[k]) return e[k] as string;
    problems.push(`[${section}] ${k} must be a non-empty string`);
    return null;
  };
  const endpoint = str('endpoint', true) ?? '';
  if (endpoint && !/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-fA-F:]+\](:\d{1,5})?$/.test(endpoint)) problems.push(`[${section}] endpoint must be host[:port] without a scheme`);
  else if (endpoint && !privateOk && isRefusedEndpoint(endpoint)) problems.push(`[${section}] endpoint is a link-local or metadata address ([network] allow_private_targets = true allows it)`);
  const addressing = e.addressing ?? 'path';
  if (addressing !== 'path' && addressing !== 'virtual_host') problems.push(`[${section}] addressing must be path or virtual_host`);
  const https = e.https ?? true;
  if (typeof https !== 'boolean') problems.push(`[${section}] https must be true or false`);
  const accessKey = str('access_key', false), secretKey = str('secret_key', false);
  if ((accessKey === null) !== (secretKey === null)) problems.push(`[${section}] access_key and secret_key are given together`);
  return { endpoint, bucket: str('bucket', true) ?? '', region: str('region', false) ?? 'us-east-1', https: https === true,
    addressing: addressing === 'virtual_host' ? 'virtual_host' : 'path', accessKey, secretKey, allowPrivateTargets: privateOk };
}

const TLS_MODES: Array<TlsOptions['mode']> = ['off', 'external', 'pem', 'self_signed', 'acme'];

/** [network.tls] (document 1 tls.mode, document 4 §10); the rules of the settings PATCH apply at start too. */
function parseTls(t: Record<string, unknown>, dataDir: string, publicUrl: string, problems: string[]): TlsOptions {
  const mode = (t.mode ?? 'off') as TlsOptions['mode'];
  if (!TLS_MODES.includes(mode)) problems.push(`[network.tls] mode must be one of ${TLS_MODES.join(', ')}`);
  const str = (k: string): string | null => {
    if (t[k] === undefined) return null;
    if (typeof t[k] === 'string' && t[k]) return t[k] as string;
    problems.push(`[network.tls] ${k} must be a non-empty string`);
    return null;
  };
  const hosts = Array.isArray(t.hosts) && t.hosts.every((h) => typeof h === 'string') ? t.hosts as string[] : [];
  if (t.hosts !== undefined && !hosts.length && !Array.isArray(t.hosts)) problems.push('[network.tls] hosts must be a list of host names');
  const opts: TlsOptions = {
    mode, cert: str('cert'), key: str('key'), hosts, storeDir: resolve(dataDir, str('store_dir') ?? 'tls'),
    acmeContact: str('acme_contact'), acmeListen: str('acme_listen'),
    acmeDirectoryUrl: str('acme_directory_url') ?? 'https://acme-v02.api.letsencrypt.org/directory', acmeCaFile: str('acme_ca_file'),
  };
  let scheme = '';
  try { scheme = new URL(publicUrl).protocol; } catch { /* reported with public_url */ }
  if (scheme && mode === 'off' && scheme !== 'http:') problems.push('[network.tls] with mode off the public URL must be http://');
  if (scheme && mode !== 'off' && TLS_MODES.includes(mode) && scheme !== 'https:') problems.push(`[network.tls] with mode ${mode} the public URL must be https://`);
  if (mode === 'pem' && (!opts.cert || !opts.key)) problems.push('[network.tls] mode pem requires cert and key');
  // Relative paths would depend on the directory the plane is started from (issue 25); the files themselves are read at start.
  for (const k of ['cert', 'key'] as const) if (opts[k] && !isAbsolute(opts[k])) problems.push(`[network.tls] ${k} must be an absolute path`);
  if (mode === 'self_signed' && !hosts.length) problems.push('[network.tls] mode self_signed requires hosts');
  if (mode === 'acme') {
    if (!hosts.length || hosts.some((h) => isIP(h) !== 0)) problems.push('[network.tls] mode acme requires hosts that are domain names');
    if (!opts.acmeListen || !/^.+:\d{1,5}$/.test(opts.acmeListen)) problems.push('[network.tls] mode acme requires acme_listen (IP:port)');
  }
  return opts;
}

/**
 * The level a RUST_LOG / ARGUS_LOG value sets: a bare level (`warn`), or a Rust directive list
 * (`info,argus_plane=debug`) where a directive for `argus_plane` wins over the bare level and
 * directives for other targets are ignored. `trace` counts as debug, `off` as error.
 */
function envLogLevel(value: string): string {
  let bare = '', mine = '';
  for (const d of value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    const eq = d.indexOf('=');
    if (eq < 0) bare = d;
    else if (d.slice(0, eq) === 'argus_plane' || d.slice(0, eq) === 'argus') mine = d.slice(eq + 1);
  }
  const level = mine || bare;
  return level === 'trace' ? 'debug' : level === 'off' ? 'error' : level;
}

function parseListen(text: string): { host: string; port: number } | null {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(text);
  if (!m) return null;
  const port = Number(m[2]);
  if (port > 65535) return null;
  const host = m[1]!.replace(/^\[|\]$/g, '');
  if (!host.includes(':') && host.split('.').some((o) => Number(o) > 255)) return null;
  return { host, port };
}

export function configPathFrom(arg: string | undefined): string {
  const p = arg ?? join('data', 'plane.toml');
  return isAbsolute(p) ? p : resolve(p);
}
