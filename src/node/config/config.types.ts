export interface Listen {
  host: string;
  port: number;
}

export interface AuthSettings {
  admin_password?: string;
  session_secret?: string;
  admin_ip_bind: boolean;
  api_read_token?: string;
  api_write_token?: string;
}

export type AuthBackend = { kind: 'hs256'; secret: string } | { kind: 'jwks'; url: string };

export interface StorageSettings {
  name: string;
  path: string;
  max_bytes?: number;
}

export interface StreamSettings {
  name: string;
  input?: string;
  dvr?: { storage: string; retention: string };
  on_demand: boolean;
}

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The parsed configuration. `auth` holds the raw secrets: hand it to the gate, then drop it. */
export interface NodeConfig {
  listen: Listen[];
  auth: AuthSettings;
  auth_backend?: AuthBackend;
  session_keys?: { secret: string };
  trusted_proxies: string[];
  storages: StorageSettings[];
  cluster_id?: string;
  data_dir: string;
  log_level: LogLevel;
  streams: StreamSettings[];
}

export const DEFAULT_DATA_DIR = '/var/lib/argus-node';
export const DEFAULT_LISTEN: Listen = { host: '0.0.0.0', port: 8081 };
