import { parse as parseToml } from 'smol-toml';
import { HTTP_LIMITS } from '../http/limits.js';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { LogLevel, PlaneConfig, PlaneToml } from './config.types.js';
import { lengthProblems } from './lengths.js';
import { parseNetwork } from './network.js';
import { parseEvidenceStorage } from './evidence-storage.js';
import { parseSweeper } from './sweeper.js';
import { parseNotifications } from './notifications.js';
import { parseDatabase } from './database.js';

export type { EvidenceLocation, LogLevel, PlaneConfig, SmtpSettings } from './config.types.js';

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
# read_url = "postgres://user@10.0.0.2/argus" # hot standbys for reads that may lag (docs/deployment.md, Read replicas)
# max_read_lag_secs = 10                    # a replica further behind is skipped (reads go to the primary)

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

[notifications]
channel_rate = 10                 # deliveries per second per channel; the rest wait (1..10000)
# deliver = false                 # this process records deliveries but sends none (another process sends them)
# [notifications.smtp]            # the server every e-mail channel sends through (docs/notifications.md)
# host = "smtp.example.org"
# tls = "starttls"                # starttls (port 587) | tls (465) | off (25)
# port = 587
# user = "argus"
# password = "..."                # write-only through the settings API
# from = "Argus <alerts@example.org>"
# tls_ca = "/etc/argus/smtp-ca.pem" # trust these certificates for this server in place of the system's
`;

const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];

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
  if (!Number.isInteger(dvr) || dvr < 60 || dvr > 86400)
    problems.push('dvr_export_max_secs must be an integer in 60..86400');

  const database = parseDatabase(doc.database, env, dataDir, problems);

  // Every section is parsed whatever the others hold, into one list: all problems are reported together.
  const { listen, publicUrl, trustedProxies, allowPrivateTargets, tls } = parseNetwork(doc.network, dataDir, problems);

  const logLevelEnv: PlaneConfig['logLevelEnv'] = env.RUST_LOG?.trim()
    ? 'RUST_LOG'
    : env.ARGUS_LOG?.trim()
      ? 'ARGUS_LOG'
      : null;
  const envLevel = logLevelEnv ? envLogLevel(env[logLevelEnv]!) : '';
  const fileLevel = String(doc.logging?.minimum_level ?? 'info');
  if (!LEVELS.includes(fileLevel as LogLevel))
    problems.push(`[logging] minimum_level must be one of ${LEVELS.join(', ')}`);
  let logLevel = fileLevel as LogLevel;
  let logLevelSource: PlaneConfig['logLevelSource'] = 'file';
  if (logLevelEnv) {
    if (LEVELS.includes(envLevel as LogLevel)) {
      logLevel = envLevel as LogLevel;
      logLevelSource = 'environment';
    } else problems.push(`RUST_LOG/ARGUS_LOG must be one of ${LEVELS.join(', ')}`);
  }

  const purgeDays = doc.events?.purge_record_retention_days ?? 30;
  if (!Number.isInteger(purgeDays) || purgeDays < 1 || purgeDays > 3650)
    problems.push('[events] purge_record_retention_days must be an integer in 1..3650');

  const rate = doc.events?.module_rate_limit_default ?? 200;
  if (!Number.isInteger(rate) || rate < 1) problems.push('[events] module_rate_limit_default must be an integer >= 1');

  const { evidence, evidencePressure } = parseEvidenceStorage(doc, dataDir, allowPrivateTargets, problems);
  const sweeper = parseSweeper(doc.sweeper, problems);
  const notifications = parseNotifications(doc.notifications, dataDir, allowPrivateTargets, problems);

  let bootstrap: PlaneConfig['bootstrap'] = null;
  const bl = env.ARGUS_BOOTSTRAP_LOGIN,
    bp = env.ARGUS_BOOTSTRAP_PASSWORD;
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
    evidence,
    evidencePressure,
    sweeper,
    sessionTtlSecs: 12 * 3600,
    live: { globalCapacity: 1024, perPrincipal: 32, heartbeatMs: 15_000, ringSize: 8192, lagBytes: 1 << 20 },
    loginThrottle: { attempts: 5, windowSecs: 300 },
    http: HTTP_LIMITS,
    trustedProxies,
    allowPrivateTargets,
    tls,
    notifications,
  };
}

/**
 * The level a RUST_LOG / ARGUS_LOG value sets: a bare level (`warn`), or a Rust directive list
 * (`info,argus_plane=debug`) where a directive for `argus_plane` wins over the bare level and
 * directives for other targets are ignored. `trace` counts as debug, `off` as error.
 */
function envLogLevel(value: string): string {
  let bare = '',
    mine = '';
  for (const d of value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)) {
    const eq = d.indexOf('=');
    if (eq < 0) bare = d;
    else if (d.slice(0, eq) === 'argus_plane' || d.slice(0, eq) === 'argus') mine = d.slice(eq + 1);
  }
  const level = mine || bare;
  return level === 'trace' ? 'debug' : level === 'off' ? 'error' : level;
}

export function configPathFrom(arg: string | undefined): string {
  const p = arg ?? join('data', 'plane.toml');
  return isAbsolute(p) ? p : resolve(p);
}
