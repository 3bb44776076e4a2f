import { parse } from '@decimalturn/toml-patch';
import { isAbsolute, resolve } from 'node:path';
import type { Db } from '../db/database.js';
import type { PlaneConfig } from '../config/config.js';
import { errors, ApiError } from '../errors.js';
import type { Principal } from '../http/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import type { PlaneLogService } from '../logs/logs.service.js';
import { applyEdits, at, readPlaneToml, writePlaneToml, type Edit, type TomlFile } from './plane-toml.js';
import { dvrEdit, evidenceEdits, levelEdit, networkEdits, type SettingsPatch } from './settings.rules.js';
import { settingsStore } from './settings.store.js';
import type { CertificateDescription } from '../tls/tls.types.js';
import { precheckStorage } from './storage-check.js';
import { PemProblem, readPemPair } from '../tls/pem.js';
import type { EvidenceLocation } from '../config/config.js';
import { holdsObjects, storageAt, type OperationFigures } from '../evidence/storage-operations.js';
import { volumeFigures } from '../evidence/fullness.js';

/** What the stats of the evidence storage need from other domains. */
export interface StorageFigures {
  totals(): Promise<{ bytes: number; attachments: number }>;
  eventsTotal(): Promise<number>;
  /** live operation figures of this process's storage */
  operations(): OperationFigures;
  /** background jobs (purge, retention, previews, named jobs) whose last run failed */
  failedJobs(): Promise<number>;
  /** uploads refused at the critical watermark */
  pressureDropped(): Promise<number>;
}

/** The location keys of a storage section (what [evidence_storage_retired] keeps). */
const LOCATION_KEYS = ['backend', 'dir', 'endpoint', 'bucket', 'region', 'https', 'addressing', 'access_key', 'secret_key'] as const;
/** How long a listing may take before a storage counts as holding objects (unknown: the safe answer). */
const LISTING_TIMEOUT_MS = 5_000;
/** A storage's identity: two sections naming one folder or one bucket are one storage. */
const where = (l: EvidenceLocation) => l.backend === 's3' ? `s3:${l.s3?.endpoint}/${l.s3?.bucket}` : `local:${l.dir}`;

const LOCK_TIMEOUT = '55P03';

/**
 * Control-plane settings (document 1, document 4 §10): plane.toml read and edited in place,
 * under a lock held in the database, guarded by the file's hash (ETag / If-Match). Network and
 * evidence storage apply at the next start (`pending_restart`); the log level applies at once
 * unless RUST_LOG / ARGUS_LOG own it.
 */
export class SettingsService {
  constructor(private readonly db: Db, private readonly config: PlaneConfig, private readonly audit: AuditService, private readonly logs: PlaneLogService,
    private readonly figures: StorageFigures, private readonly certificate: () => CertificateDescription, private readonly lockWaitMs = 10_000) {}

  private async read(): Promise<TomlFile> {
    if (!this.config.configFile) throw errors.planeConfigUnreadable('no settings file');
    try {
      return await readPlaneToml(this.config.configFile);
    } catch (err) {
      throw errors.planeConfigUnreadable((err as NodeJS.ErrnoException).code ?? (err as Error).message.split('\n')[0]!.slice(0, 200));
    }
  }

  async get(): Promise<{ etag: string; body: Record<string, unknown> }> {
    const f = await this.read();
    return { etag: f.etag, body: { source: this.config.configFile, dvr_export_max_secs: at(f.doc, 'dvr_export_max_secs') ?? 3600, network: this.network(f.doc), logging: this.logging(f.doc), evidence_storage: await this.evidence(f.doc) } };
  }

  async patch(p: Principal, body: SettingsPatch, ifMatch: string | undefined): Promise<{ etag: string; body: Record<string, unknown> }> {
    const sections = (['dvr_export_max_secs', 'network', 'log_level', 'evidence_storage'] as const).filter((k) => body[k] !== undefined && body[k] !== null);
    if (!sections.length) throw errors.badRequest('no_settings_supplied');
    if (body.log_level !== undefined && body.log_level !== null && this.config.logLevelEnv) throw errors.rustLogOverride();
    // The values first, before the file and the lock (the acknowledgement rule needs the saved file: below).
    this.edits(body, {}, true);
    // pem files are read when saved, as the start will read them (issue 25): a pair that cannot be served is a 400, not a plane that will not start.
    const tls = body.network?.tls;
    if (tls?.mode === 'pem') {
      await readPemPair(String(tls.cert), String(tls.key)).catch((err: unknown) => { throw err instanceof PemProblem ? errors.settingsInvalid(err.message) : err; });
    }
    try {
      const now = await this.db.transaction().execute(async (trx) => {
        await settingsStore.lock(trx, this.lockWaitMs);
        const f = await this.read();
        if (ifMatch !== undefined && ifMatch !== f.etag && ifMatch !== '*') throw errors.conflict('settings_changed');
        const edits = this.edits(body, f.doc, body.acknowledge_destructive_volume_retention === true);
        if (body.evidence_storage) {
          const ev = edits.filter(([path]) => path[0] === 'evidence_storage');
          const location = (d: Record<string, unknown>) => JSON.stringify(['backend', 'dir', 'endpoint', 'bucket'].map((k) => at(d, 'evidence_storage', k) ?? null));
          const candidate = applyEdits(f.text, ev);
          if (location(parse(candidate) as Record<string, unknown>) !== location(f.doc)) {
            if (await this.rotationBlocked(f.doc)) throw errors.conflict('event_storage_rotation_blocked');
            await precheckStorage(ev, f.doc, this.config);
            edits.push(...await this.retireEdits(f.doc, this.locationOf(at(parse(candidate) as Record<string, unknown>, 'evidence_storage'))!));
          }
        }
        const text = applyEdits(f.text, edits);
        if (text !== f.text) {
          // The file may have been edited by hand since it was read: refuse rather than overwrite.
          if ((await readPlaneToml(this.config.configFile!)).etag !== f.etag) throw errors.conflict('settings_changed');
          await writePlaneToml(this.config.configFile!, text);
          try {
            if (body.log_level != null) this.logs.setCaptureLevel(body.log_level as never);
            await this.audit.record(trx, { actor: actorOf(p), orgId: null, action: 'settings.update', objectType: 'settings', objectId: null, objectName: 'plane.toml',
              params: { sections: [...sections].sort(), ...(body.log_level != null ? { log_level: body.log_level } : {}) } });
          } catch (err) {
            await writePlaneToml(this.config.configFile!, f.text);
            if (body.log_level != null) this.logs.setCaptureLevel(this.config.logLevel);
            throw err;
          }
        }
        return readPlaneToml(this.config.configFile!);
      });
      // The reply after the commit: its figures read the database, which the embedded one serves one transaction at a time.
      const out: Record<string, unknown> = { dvr_export_max_secs: null, network: null, logging: null, evidence_storage: null };
      if (sections.includes('dvr_export_max_secs')) out.dvr_export_max_secs = at(now.doc, 'dvr_export_max_secs');
      if (sections.includes('network')) out.network = this.network(now.doc);
      if (sections.includes('log_level')) out.logging = this.logging(now.doc);
      if (sections.includes('evidence_storage')) out.evidence_storage = await this.evidence(now.doc);
      return { etag: now.etag, body: out };
    } catch (err) {
      if (!(err instanceof ApiError) && (err as { code?: string }).code === LOCK_TIMEOUT) throw errors.conflict('settings_busy');
      throw err;
    }
  }

  /**
   * POST .../evidence-storage/test: the candidate is checked as a PATCH would check it, then a
   * probe object is written, read back and deleted in it; nothing is saved. A failure is 502 with
   * what failed (no secret in it).
   */
  async testStorage(body: { evidence_storage: Record<string, unknown> }): Promise<{ ok: boolean; rotation_blocked: boolean }> {
    // A check, not a change: the acknowledgement of a retention policy is the PATCH's business.
    const saved = (await this.read().catch(() => null))?.doc ?? {};
    // Against the saved section: omitted keys are the stored ones only for the endpoint they were saved with.
    const edits = evidenceEdits(body.evidence_storage, saved, true, this.config.dataDir);
    await precheckStorage(edits, saved, this.config);
    const next = this.locationOf(Object.fromEntries(edits.map(([path, value]) => [path[1], value])))!;
    if (where(next) === where(this.locationOf({ backend: 'local', ...(at(saved, 'evidence_storage') as object | undefined) })!)) return { ok: true, rotation_blocked: false };
    const blocked = await this.rotationBlocked(saved)
      || await this.retireEdits(saved, next).then(() => false, (err: unknown) => { if (err instanceof ApiError && err.status === 409) return true; throw err; });
    return { ok: true, rotation_blocked: blocked };
  }

  /** A storage section of the saved file as a location (the default folder when `dir` is absent). */
  private locationOf(section: unknown): EvidenceLocation | null {
    if (typeof section !== 'object' || section === null) return null;
    const e = section as Record<string, unknown>;
    if (e.backend === 's3') {
      const str = (k: string) => (typeof e[k] === 'string' && e[k] ? e[k] as string : null);
      return { backend: 's3', dir: '', s3: { endpoint: str('endpoint') ?? '', bucket: str('bucket') ?? '', region: str('region') ?? 'us-east-1', https: e.https !== false,
        addressing: e.addressing === 'virtual_host' ? 'virtual_host' : 'path', accessKey: str('access_key'), secretKey: str('secret_key'),
        allowPrivateTargets: this.config.allowPrivateTargets } };
    }
    const dir = typeof e.dir === 'string' && e.dir ? (isAbsolute(e.dir) ? e.dir : resolve(this.config.dataDir, e.dir)) : this.config.evidence.dir;
    return { backend: 'local', dir, s3: null };
  }

  /** Whether a storage holds objects; a listing that fails or takes too long counts as yes (refusing is the safe side). */
  private async holds(loc: EvidenceLocation): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((res) => { timer = setTimeout(() => res(true), LISTING_TIMEOUT_MS); });
    try {
      return await Promise.race([holdsObjects(storageAt(loc)).catch(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * rotation_blocked (document 4 §10): the storage a previous change retired
   * ([evidence_storage_retired]) still holds objects. Until `argus-plane evidence migrate`
   * has moved them (or they are deleted) a further move is refused with 409.
   */
  private async rotationBlocked(saved: Record<string, unknown>): Promise<boolean> {
    const retired = this.locationOf(at(saved, 'evidence_storage_retired'));
    return retired !== null && await this.holds(retired);
  }

  /**
   * A move retires the storages it leaves: the saved one and, when a change is already pending,
   * the one this process writes to. The one that holds objects goes to
   * [evidence_storage_retired] (the next start reads from it what the new storage lacks); when
   * none does, an earlier retired section goes; when both do, one section cannot name them and
   * the move is refused (409 event_storage_rotation_blocked).
   */
  private async retireEdits(saved: Record<string, unknown>, next: EvidenceLocation): Promise<Edit[]> {
    const savedSection = { backend: 'local', ...(at(saved, 'evidence_storage') as Record<string, unknown> | undefined) };
    const e = this.config.evidence;
    const effectiveSection: Record<string, unknown> = e.backend === 's3' && e.s3
      ? { backend: 's3', endpoint: e.s3.endpoint, bucket: e.s3.bucket, region: e.s3.region, https: e.s3.https, addressing: e.s3.addressing,
        ...(e.s3.accessKey && e.s3.secretKey ? { access_key: e.s3.accessKey, secret_key: e.s3.secretKey } : {}) }
      : { backend: 'local', dir: e.dir };
    const left = new Map<string, Record<string, unknown>>();
    for (const section of [savedSection, effectiveSection]) {
      const loc = this.locationOf(section)!;
      if (where(loc) !== where(next)) left.set(where(loc), loc.backend === 'local' ? { backend: 'local', dir: loc.dir } : section);
    }
    const holders: Array<Record<string, unknown>> = [];
    for (const section of left.values()) if (await this.holds(this.locationOf(section)!)) holders.push(section);
    if (holders.length > 1) throw errors.conflict('event_storage_rotation_blocked');
    if (!holders.length) return [[['evidence_storage_retired'], undefined]];
    const keys = holders[0]!;
    return LOCATION_KEYS.map((k): Edit => [['evidence_storage_retired', k], keys[k]]);
  }

  private edits(body: SettingsPatch, saved: Record<string, unknown>, acknowledged: boolean): Edit[] {
    const edits: Edit[] = [];
    if (body.dvr_export_max_secs != null) edits.push(dvrEdit(body.dvr_export_max_secs));
    if (body.network) edits.push(...networkEdits(body.network));
    if (body.log_level != null) edits.push(levelEdit(body.log_level));
    if (body.evidence_storage) edits.push(...evidenceEdits(body.evidence_storage, saved, acknowledged, this.config.dataDir));
    return edits;
  }

  private network(doc: Record<string, unknown>) {
    const c = this.config;
    const savedUrl = String(at(doc, 'network', 'public_url') ?? c.publicUrl);
    const savedListen = String(at(doc, 'network', 'listen') ?? `${c.listen.host}:${c.listen.port}`);
    const savedMode = String(at(doc, 'network', 'tls', 'mode') ?? 'off');
    const t = c.tls;
    const effective = { public_url: c.publicUrl, listen: `${c.listen.host.includes(':') ? `[${c.listen.host}]` : c.listen.host}:${c.listen.port}`,
      tls: { mode: t.mode, cert: t.cert, key: t.key, hosts: t.hosts, store_dir: t.storeDir, acme_contact: t.acmeContact, acme_listen: t.acmeListen } };
    return {
      effective, saved: { public_url: savedUrl, listen: savedListen, tls: { mode: savedMode } },
      pending_restart: savedUrl !== effective.public_url || savedListen !== effective.listen || savedMode !== effective.tls.mode,
      certificate: this.certificate(),
    };
  }

  private logging(doc: Record<string, unknown>) {
    const c = this.config;
    const saved = String(at(doc, 'logging', 'minimum_level') ?? 'info');
    const override = c.logLevelEnv !== null;
    const running = this.logs.level();
    return {
      minimum_level: saved, effective_minimum_level: running,
      source: override ? `environment ${c.logLevelEnv}` : 'settings file', environment_override: override,
      applies_live: !override && saved === running,
    };
  }

  private async evidence(doc: Record<string, unknown>) {
    const c = this.config;
    const savedBackend = String(at(doc, 'evidence_storage', 'backend') ?? 'local');
    const flags = (access: unknown, secret: unknown) => ({ access_key_configured: typeof access === 'string' && access !== '', secret_key_configured: typeof secret === 'string' && secret !== '' });
    const ev = (k: string) => at(doc, 'evidence_storage', k);
    // The limits as saved, absent keys read as the start reads them (issue 25: only backend and dir were shown).
    const savedLimits = { max_bytes: ev('max_bytes') ?? null, volume_retention: ev('volume_retention') ?? 'disabled',
      low_watermark_percent: ev('low_watermark_percent') ?? 70, high_watermark_percent: ev('high_watermark_percent') ?? 85, critical_watermark_percent: ev('critical_watermark_percent') ?? 95 };
    const saved = savedBackend === 's3'
      ? { backend: 's3', endpoint: ev('endpoint') ?? null, bucket: ev('bucket') ?? null, ...flags(ev('access_key'), ev('secret_key')), ...savedLimits }
      : { backend: 'local', dir: String(ev('dir') ?? c.evidence.dir), ...savedLimits };
    const s3 = c.evidence.s3;
    const effective = {
      backend: c.evidence.backend, ...(s3 ? { endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, https: s3.https, addressing: s3.addressing, ...flags(s3.accessKey, s3.secretKey) } : { dir: c.evidence.dir }),
      max_bytes: c.evidencePressure.maxBytes, volume_retention: c.evidencePressure.volumeRetention ?? 'disabled',
      low_watermark_percent: c.evidencePressure.lowPercent, high_watermark_percent: c.evidencePressure.highPercent, critical_watermark_percent: c.evidencePressure.criticalPercent,
    };
    return {
      effective, saved,
      // The running process keeps its limits until a restart (document 1), so a saved limit that differs is pending too.
      pending_restart: JSON.stringify([saved.backend, 'dir' in saved ? saved.dir : null, 'endpoint' in saved ? saved.endpoint : null, 'bucket' in saved ? saved.bucket : null, ...Object.values(savedLimits)])
        !== JSON.stringify([effective.backend, 'dir' in effective ? effective.dir : null, s3?.endpoint ?? null, s3?.bucket ?? null,
          ...Object.keys(savedLimits).map((k) => effective[k as keyof typeof savedLimits])]),
      rotation_blocked: await this.rotationBlocked(doc), backend_divergence: null, stats: await this.stats(),
    };
  }

  /** Figures of the storage in use: the plane's own accounting, and the volume (statfs) or max_bytes. */
  private async stats() {
    const c = this.config;
    const [totals, events, failedJobs, dropped] = await Promise.all([this.figures.totals(), this.figures.eventsTotal(), this.figures.failedJobs(), this.figures.pressureDropped()]);
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
      } catch { state = 'unavailable'; }
    }
    const used = capacity ? Math.round(((capacity - (available ?? 0)) / capacity) * 10_000) / 100 : 0;
    return {
      state, logical_bytes: totals.bytes, physical_bytes: physical ?? totals.bytes, event_count: events, attachment_count: totals.attachments,
      capacity_bytes: capacity, available_bytes: available, used_percent: used,
      operations: this.figures.operations(), failed_jobs: failedJobs, pressure_dropped_attachments: dropped,
    };
  }
}
