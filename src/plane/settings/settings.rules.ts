import { isAbsolute } from 'node:path';
import { isIP } from 'node:net';
import { errors } from '../errors.js';
import { at, type Edit } from './plane-toml.js';
import { refusedEvidenceDir } from '../config/evidence-dir.js';
import type { NotificationsPatch } from './notifications.section.js';

/** The PATCH body (document 1, control-plane settings); sections absent or null are left alone. */
export interface SettingsPatch {
  dvr_export_max_secs?: number | null;
  network?: { public_url?: unknown; listen?: unknown; tls?: Record<string, unknown> } | null;
  log_level?: string | null;
  evidence_storage?: Record<string, unknown> | null;
  acknowledge_destructive_volume_retention?: boolean;
  /** [notifications] and [notifications.smtp] (notifications.section.ts) */
  notifications?: NotificationsPatch | null;
}

export const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
const TLS_MODES = ['off', 'external', 'pem', 'self_signed', 'acme'];
/** Modes this build serves; the others are validated, then refused until the TLS work lands (docs/settings.md). */
const TLS_SERVED = ['off', 'external', 'pem', 'self_signed', 'acme'];
const MIN_MAX_BYTES = 64 * 1024 * 1024;
const invalid = (text: string): never => {
  throw errors.settingsInvalid(text);
};

export function isListen(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const m = /^(.+):(\d{1,5})$/.exec(v);
  if (!m || Number(m[2]) > 65535) return false;
  const host = m[1]!.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) !== 0 && (isIP(host) === 4 || m[1]!.startsWith('['));
}

/** Checks the network section (rules 3-7) and returns its edits. */
export function networkEdits(n: NonNullable<SettingsPatch['network']>): Edit[] {
  if (n.public_url === undefined || n.listen === undefined || n.tls === undefined)
    invalid('network needs public_url, listen and tls together');
  let url: URL | null = null;
  try {
    url = new URL(String(n.public_url));
  } catch {
    /* below */
  }
  if (typeof n.public_url !== 'string' || !url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw errors.badRequest('invalid_public_url');
  if (!isListen(n.listen)) invalid('listen must be IP:port');
  const tls = n.tls!;
  const mode = tls.mode;
  if (typeof mode !== 'string' || !TLS_MODES.includes(mode)) invalid(`tls.mode must be one of ${TLS_MODES.join(', ')}`);
  if (mode === 'off' && url!.protocol !== 'http:') invalid('with tls.mode off the public URL must be http://');
  if (mode !== 'off' && url!.protocol !== 'https:') invalid(`with tls.mode ${mode} the public URL must be https://`);
  const str = (k: string) =>
    tls[k] === undefined || tls[k] === null
      ? null
      : typeof tls[k] === 'string' && tls[k]
        ? (tls[k] as string)
        : invalid(`tls.${k} must be a non-empty string`);
  const cert = str('cert'),
    key = str('key'),
    storeDir = str('store_dir'),
    contact = str('acme_contact'),
    acmeListen = str('acme_listen');
  const hosts =
    tls.hosts === undefined || tls.hosts === null
      ? []
      : Array.isArray(tls.hosts) && tls.hosts.every((h) => typeof h === 'string' && h)
        ? (tls.hosts as string[])
        : invalid('tls.hosts must be a list of host names');
  if (mode === 'pem' && (!cert || !key)) invalid('tls.mode pem requires cert and key');
  if ((cert && !isAbsolute(cert)) || (key && !isAbsolute(key))) invalid('tls.cert and tls.key must be absolute paths');
  if ((mode === 'self_signed' || mode === 'acme') && !hosts.includes(url!.hostname.replace(/^\[(.*)\]$/, '$1')))
    invalid(`tls.hosts must include the public URL's host ${url!.hostname}`);
  if (mode === 'acme') {
    if (hosts.some((h) => isIP(h) !== 0)) invalid('tls.mode acme requires domain names in hosts, not IP addresses');
    if (!isListen(acmeListen) || acmeListen === n.listen)
      invalid('tls.mode acme requires an acme_listen IP:port different from listen');
  }
  if (!TLS_SERVED.includes(mode as string))
    invalid(`tls.mode ${mode} is not served by this build yet (off, external, pem and self_signed are)`);
  const opt = (k: string, v: unknown): Edit => [
    ['network', 'tls', k],
    v === null || (Array.isArray(v) && !v.length) ? undefined : v,
  ];
  return [
    [['network', 'public_url'], n.public_url],
    [['network', 'listen'], n.listen],
    [['network', 'tls', 'mode'], mode],
    opt('cert', cert),
    opt('key', key),
    opt('hosts', hosts),
    opt('store_dir', storeDir),
    opt('acme_contact', contact),
    opt('acme_listen', acmeListen),
  ];
}

const S3_KEYS = ['endpoint', 'bucket', 'region', 'https', 'addressing', 'access_key', 'secret_key'] as const;

/** Checks the evidence_storage section (rules 1, 2, 8) against the saved file and returns its edits. */
export function evidenceEdits(
  e: Record<string, unknown>,
  saved: Record<string, unknown>,
  acknowledged: boolean,
  dataDir: string,
): Edit[] {
  const backend = e.backend;
  if (backend !== 'local' && backend !== 's3') invalid('evidence_storage.backend must be local or s3');
  const [low, high, critical] = [e.low_watermark_percent, e.high_watermark_percent, e.critical_watermark_percent];
  if (![low, high, critical].every((v) => Number.isInteger(v)))
    invalid(
      'evidence_storage needs low_watermark_percent, high_watermark_percent and critical_watermark_percent as integers',
    );
  if (!(
    1 <= (low as number) &&
    (low as number) < (high as number) &&
    (high as number) < (critical as number) &&
    (critical as number) <= 99
  ))
    invalid('watermarks must satisfy 1 <= low < high < critical <= 99');
  const maxBytes = e.max_bytes ?? null;
  if (maxBytes !== null && (!Number.isSafeInteger(maxBytes) || (maxBytes as number) < MIN_MAX_BYTES))
    invalid('evidence_storage.max_bytes must be at least 64 MiB (67108864)');
  const retention = e.volume_retention;
  if (retention !== 'disabled' && retention !== 'oldest_purge_day')
    invalid('evidence_storage.volume_retention must be disabled or oldest_purge_day');
  if (
    retention === 'oldest_purge_day' &&
    at(saved, 'evidence_storage', 'volume_retention') !== 'oldest_purge_day' &&
    !acknowledged
  ) {
    throw errors.badRequest('destructive_volume_retention_acknowledgement_required');
  }
  const ev = (k: string, v: unknown): Edit => [['evidence_storage', k], v === null ? undefined : v];
  const marks = [
    ev('volume_retention', retention),
    ev('low_watermark_percent', low),
    ev('high_watermark_percent', high),
    ev('critical_watermark_percent', critical),
    ev('max_bytes', maxBytes),
  ];
  if (backend === 's3') {
    for (const k of ['endpoint', 'bucket', 'addressing'])
      if (typeof e[k] !== 'string' || !e[k]) invalid(`evidence_storage.${k} is required with backend s3`);
    if (!/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-fA-F:]+\](:\d{1,5})?$/.test(e.endpoint as string))
      invalid('evidence_storage.endpoint must be host[:port] without a scheme');
    if (e.addressing !== 'path' && e.addressing !== 'virtual_host')
      invalid('evidence_storage.addressing must be path or virtual_host');
    if (maxBytes === null) invalid('evidence_storage.max_bytes is required with backend s3');
    if ((e.access_key === undefined) !== (e.secret_key === undefined))
      invalid('access_key and secret_key are given together');
    if (
      e.access_key !== undefined &&
      (typeof e.access_key !== 'string' || typeof e.secret_key !== 'string' || !e.access_key || !e.secret_key)
    )
      invalid('access_key and secret_key must be non-empty strings');
    if (e.https !== undefined && typeof e.https !== 'boolean') invalid('evidence_storage.https must be true or false');
    if (e.region !== undefined && (typeof e.region !== 'string' || !e.region))
      invalid('evidence_storage.region must be a non-empty string');
    // Omitted keys keep the stored ones only with the endpoint they were saved for; another endpoint gets none (issue 25).
    const keys =
      e.access_key !== undefined
        ? [ev('access_key', e.access_key), ev('secret_key', e.secret_key)]
        : sameS3Endpoint(saved, e.endpoint as string)
          ? []
          : [ev('access_key', null), ev('secret_key', null)];
    return [
      ev('backend', 's3'),
      ev('dir', null),
      ev('endpoint', e.endpoint),
      ev('bucket', e.bucket),
      ev('region', e.region ?? 'us-east-1'),
      ev('https', e.https ?? true),
      ev('addressing', e.addressing),
      ...keys,
      ...marks,
    ];
  }
  if (typeof e.dir !== 'string' || !isAbsolute(e.dir)) invalid('evidence_storage.dir must be an absolute path');
  // By its path alone, saved or not (its content is looked at when the folder changes: storage-check.ts).
  const refused = refusedEvidenceDir(e.dir as string, dataDir);
  if (refused) throw errors.badRequest('evidence_dir_refused', { reason: `evidence_storage.dir: ${refused}` });
  // The keys of the other backend go (a bucket's keys do not linger in a folder's section).
  return [ev('backend', 'local'), ev('dir', e.dir), ...S3_KEYS.map((k) => ev(k, null)), ...marks];
}

/** Whether the saved section is an s3 storage at `endpoint` (host and port, any case): its stored keys were given for it. */
export function sameS3Endpoint(saved: Record<string, unknown>, endpoint: string): boolean {
  const was = at(saved, 'evidence_storage', 'endpoint');
  return (
    at(saved, 'evidence_storage', 'backend') === 's3' &&
    typeof was === 'string' &&
    was.toLowerCase() === endpoint.toLowerCase()
  );
}

export function dvrEdit(v: unknown): Edit {
  if (!Number.isInteger(v) || (v as number) < 60 || (v as number) > 86400)
    throw errors.badRequest('dvr_export_max_secs_out_of_range');
  return [['dvr_export_max_secs'], v];
}

export function levelEdit(v: unknown): Edit {
  if (typeof v !== 'string' || !(LEVELS as readonly string[]).includes(v))
    invalid(`log_level must be one of ${LEVELS.join(', ')}`);
  return [['logging', 'minimum_level'], v];
}
