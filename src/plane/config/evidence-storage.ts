import { join, resolve } from 'node:path';
import type { S3Options } from '../evidence/s3.storage.js';
import type { EvidenceLocation, PlaneConfig, PlaneToml } from './config.types.js';
import { refusedEvidenceDir } from './evidence-dir.js';
import { isRefusedEndpoint } from './endpoint-guard.js';

/**
 * [evidence_storage] (where the bytes live, the watermarks, max_bytes, volume_retention) and
 * [evidence_storage_retired]; `privateOk`: [network] allow_private_targets.
 */
export function parseEvidenceStorage(
  doc: Pick<PlaneToml, 'evidence_storage' | 'evidence_storage_retired'>,
  dataDir: string,
  privateOk: boolean,
  problems: string[],
): Pick<PlaneConfig, 'evidence' | 'evidencePressure'> {
  const evBackend = doc.evidence_storage?.backend ?? 'local';
  if (evBackend !== 'local' && evBackend !== 's3') problems.push('[evidence_storage] backend must be "local" or "s3"');
  const s3 = evBackend === 's3' ? parseS3(doc.evidence_storage ?? {}, problems, 'evidence_storage', privateOk) : null;
  const evDir = doc.evidence_storage?.dir ?? join(dataDir, 'evidence');
  if (typeof evDir !== 'string' || !evDir) problems.push('[evidence_storage] dir must be a non-empty string');
  // A folder the plane would list and empty must be its own (issue 25); its content is checked at start.
  const refusedDir =
    evBackend === 'local' && typeof evDir === 'string' && evDir
      ? refusedEvidenceDir(resolve(dataDir, evDir), dataDir)
      : null;
  if (refusedDir) problems.push(`[evidence_storage] dir: ${refusedDir}; give the evidence a folder of its own`);

  const ev = doc.evidence_storage ?? {};
  const low = ev.low_watermark_percent ?? 70,
    high = ev.high_watermark_percent ?? 85,
    critical = ev.critical_watermark_percent ?? 95;
  const marks: Array<[string, unknown]> = [
    ['low_watermark_percent', low],
    ['high_watermark_percent', high],
    ['critical_watermark_percent', critical],
  ];
  const badMarks = marks.filter(([, v]) => !Number.isInteger(v) || (v as number) < 1 || (v as number) > 99);
  for (const [k] of badMarks) problems.push(`[evidence_storage] ${k} must be an integer in 1..99`);
  if (!badMarks.length && !(low < high && high < critical))
    problems.push('[evidence_storage] watermarks must satisfy low < high < critical');
  const maxBytes = ev.max_bytes ?? null;
  if (maxBytes !== null && (!Number.isSafeInteger(maxBytes) || maxBytes < 1))
    problems.push('[evidence_storage] max_bytes must be an integer >= 1');
  // A bucket has no free-space call: its capacity is max_bytes (document 1).
  if (evBackend === 's3' && maxBytes === null)
    problems.push('[evidence_storage] max_bytes is required with backend s3');
  const volumeRetention = ev.volume_retention ?? 'disabled';
  if (volumeRetention !== 'disabled' && volumeRetention !== 'oldest_purge_day')
    problems.push('[evidence_storage] volume_retention must be "disabled" or "oldest_purge_day"');
  const retired = doc.evidence_storage_retired
    ? parseRetired(doc.evidence_storage_retired, dataDir, problems, privateOk)
    : null;
  return {
    evidence: { backend: evBackend === 's3' ? 's3' : 'local', dir: resolve(dataDir, String(evDir)), s3, retired },
    evidencePressure: {
      lowPercent: low,
      highPercent: high,
      criticalPercent: critical,
      maxBytes,
      volumeRetention: volumeRetention === 'oldest_purge_day' ? 'oldest_purge_day' : 'disabled',
    },
  };
}

/** [evidence_storage_retired]: the location keys of a storage being retired (written by the settings PATCH). */
function parseRetired(
  e: Record<string, unknown>,
  dataDir: string,
  problems: string[],
  privateOk: boolean,
): EvidenceLocation | null {
  if (e.backend === 's3')
    return { backend: 's3', dir: '', s3: parseS3(e, problems, 'evidence_storage_retired', privateOk) };
  if (e.backend === 'local' && typeof e.dir === 'string' && e.dir)
    return { backend: 'local', dir: resolve(dataDir, e.dir), s3: null };
  problems.push('[evidence_storage_retired] needs backend "s3", or backend "local" with a dir');
  return null;
}

/** The keys of an s3 backend in `section` (document 1): endpoint host[:port] without scheme, the key pair together. */
function parseS3(e: Record<string, unknown>, problems: string[], section: string, privateOk: boolean): S3Options {
  const str = (k: string, required: boolean): string | null => {
    if (e[k] === undefined) {
      if (required) problems.push(`[${section}] ${k} is required with backend s3`);
      return null;
    }
    if (typeof e[k] === 'string' && e[k]) return e[k] as string;
    problems.push(`[${section}] ${k} must be a non-empty string`);
    return null;
  };
  const endpoint = str('endpoint', true) ?? '';
  if (endpoint && !/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-fA-F:]+\](:\d{1,5})?$/.test(endpoint))
    problems.push(`[${section}] endpoint must be host[:port] without a scheme`);
  else if (endpoint && !privateOk && isRefusedEndpoint(endpoint))
    problems.push(
      `[${section}] endpoint is a link-local or metadata address ([network] allow_private_targets = true allows it)`,
    );
  const addressing = e.addressing ?? 'path';
  if (addressing !== 'path' && addressing !== 'virtual_host')
    problems.push(`[${section}] addressing must be path or virtual_host`);
  const https = e.https ?? true;
  if (typeof https !== 'boolean') problems.push(`[${section}] https must be true or false`);
  const accessKey = str('access_key', false),
    secretKey = str('secret_key', false);
  if ((accessKey === null) !== (secretKey === null))
    problems.push(`[${section}] access_key and secret_key are given together`);
  return {
    endpoint,
    bucket: str('bucket', true) ?? '',
    region: str('region', false) ?? 'us-east-1',
    https: https === true,
    addressing: addressing === 'virtual_host' ? 'virtual_host' : 'path',
    accessKey,
    secretKey,
    allowPrivateTargets: privateOk,
  };
}
