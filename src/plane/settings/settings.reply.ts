import type { PlaneConfig } from '../config/config.js';
import { volumeFigures } from '../evidence/fullness.js';
import type { OperationFigures } from '../evidence/storage-operations.js';
import type { CertificateDescription } from '../tls/tls.types.js';
import { at } from './plane-toml.js';
import { rotationBlocked } from './storage-rotation.js';

// The sections of a settings reply (document 1): what the file saves beside what the process
// runs with, shared by the GET and by a PATCH's reply.

/**
 * The port through which the evidence storage's stats read their figures from the domains that
 * own them: each part is what its owner's service answers (app.ts hands the services over).
 */
export interface SettingsStats {
  /** the evidence domain (EvidenceService) */
  evidence: {
    /** bytes and attachments stored, every organisation together */
    totals(): Promise<{ bytes: number; attachments: number }>;
    /** live operation figures of this process's storage */
    operations(): OperationFigures;
    /** uploads refused at the critical watermark */
    pressureDropped(): Promise<number>;
  };
  /** the usage domain (UsageService): events stored, every organisation together */
  usage: { eventsTotal(): Promise<number> };
  /** every owner of background jobs (purge and cleanup jobs, the named jobs, previews): how many failed on their last run */
  jobs: ReadonlyArray<{ failedJobs(): number | Promise<number> }>;
}

/** network: the running values, the saved ones, and the certificate served. */
export function networkSection(doc: Record<string, unknown>, c: PlaneConfig, certificate: CertificateDescription) {
  const savedUrl = String(at(doc, 'network', 'public_url') ?? c.publicUrl);
  const savedListen = String(at(doc, 'network', 'listen') ?? `${c.listen.host}:${c.listen.port}`);
  const savedMode = String(at(doc, 'network', 'tls', 'mode') ?? 'off');
  const t = c.tls;
  const effective = {
    public_url: c.publicUrl,
    listen: `${c.listen.host.includes(':') ? `[${c.listen.host}]` : c.listen.host}:${c.listen.port}`,
    tls: {
      mode: t.mode,
      cert: t.cert,
      key: t.key,
      hosts: t.hosts,
      store_dir: t.storeDir,
      acme_contact: t.acmeContact,
      acme_listen: t.acmeListen,
    },
  };
  return {
    effective,
    saved: { public_url: savedUrl, listen: savedListen, tls: { mode: savedMode } },
    pending_restart:
      savedUrl !== effective.public_url || savedListen !== effective.listen || savedMode !== effective.tls.mode,
    certificate,
  };
}

/** logging: the saved minimum level, the `running` one, and who owns it. */
export function loggingSection(doc: Record<string, unknown>, c: PlaneConfig, running: string) {
  const saved = String(at(doc, 'logging', 'minimum_level') ?? 'info');
  const override = c.logLevelEnv !== null;
  return {
    minimum_level: saved,
    effective_minimum_level: running,
    source: override ? `environment ${c.logLevelEnv}` : 'settings file',
    environment_override: override,
    applies_live: !override && saved === running,
  };
}

/** evidence_storage: the storage and limits running and saved, rotation_blocked, and the stats. */
export async function evidenceStorageSection(doc: Record<string, unknown>, c: PlaneConfig, stats: SettingsStats) {
  const savedBackend = String(at(doc, 'evidence_storage', 'backend') ?? 'local');
  const flags = (access: unknown, secret: unknown) => ({
    access_key_configured: typeof access === 'string' && access !== '',
    secret_key_configured: typeof secret === 'string' && secret !== '',
  });
  const ev = (k: string) => at(doc, 'evidence_storage', k);
  // The limits as saved, absent keys read as the start reads them (issue 25: only backend and dir were shown).
  const savedLimits = {
    max_bytes: ev('max_bytes') ?? null,
    volume_retention: ev('volume_retention') ?? 'disabled',
    low_watermark_percent: ev('low_watermark_percent') ?? 70,
    high_watermark_percent: ev('high_watermark_percent') ?? 85,
    critical_watermark_percent: ev('critical_watermark_percent') ?? 95,
  };
  const saved =
    savedBackend === 's3'
      ? {
          backend: 's3',
          endpoint: ev('endpoint') ?? null,
          bucket: ev('bucket') ?? null,
          ...flags(ev('access_key'), ev('secret_key')),
          ...savedLimits,
        }
      : { backend: 'local', dir: String(ev('dir') ?? c.evidence.dir), ...savedLimits };
  const s3 = c.evidence.s3;
  const effective = {
    backend: c.evidence.backend,
    ...(s3
      ? {
          endpoint: s3.endpoint,
          bucket: s3.bucket,
          region: s3.region,
          https: s3.https,
          addressing: s3.addressing,
          ...flags(s3.accessKey, s3.secretKey),
        }
      : { dir: c.evidence.dir }),
    max_bytes: c.evidencePressure.maxBytes,
    volume_retention: c.evidencePressure.volumeRetention ?? 'disabled',
    low_watermark_percent: c.evidencePressure.lowPercent,
    high_watermark_percent: c.evidencePressure.highPercent,
    critical_watermark_percent: c.evidencePressure.criticalPercent,
  };
  return {
    effective,
    saved,
    // The running process keeps its limits until a restart (document 1), so a saved limit that differs is pending too.
    pending_restart:
      JSON.stringify([
        saved.backend,
        'dir' in saved ? saved.dir : null,
        'endpoint' in saved ? saved.endpoint : null,
        'bucket' in saved ? saved.bucket : null,
        ...Object.values(savedLimits),
      ]) !==
      JSON.stringify([
        effective.backend,
        'dir' in effective ? effective.dir : null,
        s3?.endpoint ?? null,
        s3?.bucket ?? null,
        ...Object.keys(savedLimits).map((k) => effective[k as keyof typeof savedLimits]),
      ]),
    rotation_blocked: await rotationBlocked(doc, c),
    backend_divergence: null,
    stats: await storageStats(c, stats),
  };
}

/** Figures of the storage in use: the plane's own accounting, and the volume (statfs) or max_bytes. */
async function storageStats(c: PlaneConfig, stats: SettingsStats) {
  const [totals, events, failed, dropped] = await Promise.all([
    stats.evidence.totals(),
    stats.usage.eventsTotal(),
    Promise.all(stats.jobs.map((j) => j.failedJobs())),
    stats.evidence.pressureDropped(),
  ]);
  let capacity: number | null = c.evidencePressure.maxBytes;
  let available: number | null = capacity === null ? null : Math.max(0, capacity - totals.bytes);
  let physical: number | null = null;
  let state = 'ok';
  if (capacity === null) {
    try {
      const v = await volumeFigures(c.evidence.dir);
      capacity = v.capacity;
      available = v.available;
      physical = v.used;
    } catch {
      state = 'unavailable';
    }
  }
  const used = capacity ? Math.round(((capacity - (available ?? 0)) / capacity) * 10_000) / 100 : 0;
  return {
    state,
    logical_bytes: totals.bytes,
    physical_bytes: physical ?? totals.bytes,
    event_count: events,
    attachment_count: totals.attachments,
    capacity_bytes: capacity,
    available_bytes: available,
    used_percent: used,
    operations: stats.evidence.operations(),
    failed_jobs: failed.reduce((n, f) => n + f, 0),
    pressure_dropped_attachments: dropped,
  };
}
