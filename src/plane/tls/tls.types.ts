/** `[network.tls]` of plane.toml as the plane runs it (document 1 `tls.mode`, document 4 §10). */
export interface TlsOptions {
  mode: 'off' | 'external' | 'pem' | 'self_signed' | 'acme';
  cert: string | null;
  key: string | null;
  hosts: string[];
  /** where self_signed keeps its certificate (default `<data dir>/tls`) */
  storeDir: string;
  acmeContact: string | null;
  acmeListen: string | null;
  /** the ACME directory (default Let's Encrypt production) */
  acmeDirectoryUrl: string;
  /** a CA to trust for the directory (a private ACME server); null: the system's */
  acmeCaFile: string | null;
}

/** `network.certificate` of the settings (document 1). */
export interface CertificateDescription {
  mode: string;
  configured_hosts: string[];
  automatic_renewal: boolean;
  renewal_window_days: number;
  temporary_self_signed: boolean;
  status_hint: string;
  certificate: {
    fingerprint: string;
    subject: string;
    issuer: string;
    serial: string;
    hosts: string[];
    not_before: string;
    not_after: string;
    days_left: number;
    renew_after: string;
  } | null;
}

/** A certificate is renewed this long before it expires (document 4 §10). */
export const RENEWAL_WINDOW_DAYS = 30;

/** A certificate (chain) and its private key, PEM text. */
export interface KeyPair {
  cert: string;
  key: string;
}
