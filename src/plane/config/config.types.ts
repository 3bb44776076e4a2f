import type { HttpLimits } from '../http/limits.js';
import type { TlsOptions } from '../tls/tls.types.js';
import type { S3Options } from '../evidence/s3.storage.js';

// The shapes of the configuration, apart from its parsing (config.ts) so that the per-section
// parsers beside it can name them without an import cycle back to config.ts.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface PlaneConfig {
  /** The folder of plane.toml: the embedded database, the secret key file and evidence default live here. */
  dataDir: string;
  configFile: string | null;
  database:
    | {
        kind: 'postgres';
        url: string;
        source: 'DATABASE_URL' | 'plane.toml';
        /** [database] read_url and max_read_lag_secs: hot standbys for reads that may lag; absent: none */
        read?: { url: string; maxLagSecs: number };
      }
    | { kind: 'pglite'; dir: string | null };
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
  evidencePressure: {
    lowPercent: number;
    highPercent: number;
    criticalPercent: number;
    maxBytes: number | null;
    /** `oldest_purge_day`: whole oldest days of events go at the high watermark until below the low one */
    volumeRetention?: 'disabled' | 'oldest_purge_day';
  };
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
  /** [notifications] and [notifications.smtp] (document 4 §13, docs/notifications.md). */
  notifications: NotificationsConfig;
}

/** [notifications]: the per-channel rate and the plane's SMTP server (null: none configured, e-mail channels fail in words). */
export interface NotificationsConfig {
  /** channel_rate: deliveries per second per channel (default 10); the rest wait, nothing is dropped. */
  channelRate: number;
  /** deliver: false makes a process that records deliveries (the outbox) but sends none; others send them (absent: true) */
  deliver?: boolean;
  smtp: SmtpSettings | null;
}

/** [notifications.smtp]: the server every e-mail channel sends through. */
export interface SmtpSettings {
  host: string;
  /** default by `tls`: 587 starttls, 465 tls, 25 off */
  port: number;
  /** starttls: plain connect, then STARTTLS required; tls: TLS from the first byte; off: never TLS */
  tls: 'starttls' | 'tls' | 'off';
  user: string | null;
  password: string | null;
  /** the From address (`Argus <alerts@example.org>` or a bare address) */
  from: string;
  /** tls_ca: a PEM file of the certificates trusted for this server in place of the system's; null: the system's */
  tlsCa: string | null;
}

/** Where evidence bytes live: a folder or a bucket. */
export interface EvidenceLocation {
  backend: 'local' | 's3';
  dir: string;
  s3?: S3Options | null;
}

/**
 * plane.toml as the spec declares it. Parsed TOML is not checked against this type (a user can
 * write anything), which is why every value is validated before it is used (config.ts and the
 * section parsers beside it).
 */
export interface PlaneToml {
  dvr_export_max_secs?: number;
  database?: { url?: unknown; read_url?: unknown; max_read_lag_secs?: unknown };
  network?: {
    listen?: unknown;
    public_url?: unknown;
    trusted_proxies?: unknown;
    allow_private_targets?: unknown;
    tls?: Record<string, unknown>;
  };
  logging?: { minimum_level?: unknown };
  events?: { module_rate_limit_default?: number; purge_record_retention_days?: number };
  evidence_storage?: {
    backend?: unknown;
    dir?: unknown;
    max_bytes?: number | null;
    endpoint?: unknown;
    bucket?: unknown;
    region?: unknown;
    https?: unknown;
    addressing?: unknown;
    access_key?: unknown;
    secret_key?: unknown;
    low_watermark_percent?: number;
    high_watermark_percent?: number;
    critical_watermark_percent?: number;
    volume_retention?: unknown;
  };
  evidence_storage_retired?: Record<string, unknown>;
  sweeper?: { enabled?: boolean; interval_secs?: number; timeout_secs?: number; concurrency?: number };
  notifications?: { channel_rate?: unknown; deliver?: unknown; smtp?: Record<string, unknown> };
}
