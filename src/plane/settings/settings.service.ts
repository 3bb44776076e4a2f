import { randomBytes, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { parse } from '@decimalturn/toml-patch';
import { mkdir, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
import { S3EvidenceStorage } from '../evidence/s3.storage.js';
import { isForbiddenTarget } from '../nodes/target-policy.js';

/** What the stats of the evidence storage need from other domains. */
export interface StorageFigures { totals(): Promise<{ bytes: number; attachments: number }>; eventsTotal(): Promise<number> }

const LOCK_TIMEOUT = '55P03';

/** statfs of a folder, or of its nearest existing parent (a storage folder not made yet is on that volume). */
async function statfsNearest(dir: string) {
  for (let d = dir; ; d = dirname(d)) {
    try { return await statfs(d); } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(d) === d) throw err; }
  }
}

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
    this.edits(body, {}, body.acknowledge_destructive_volume_retention === true);
    try {
      return await this.db.transaction().execute(async (trx) => {
        await settingsStore.lock(trx, this.lockWaitMs);
        const f = await this.read();
        if (ifMatch !== undefined && ifMatch !== f.etag && ifMatch !== '*') throw errors.conflict('settings_changed');
        const edits = this.edits(body, f.doc, body.acknowledge_destructive_volume_retention === true);
        if (body.evidence_storage) {
          const ev = edits.filter(([path]) => path[0] === 'evidence_storage');
          const location = (d: Record<string, unknown>) => JSON.stringify(['backend', 'dir', 'endpoint', 'bucket'].map((k) => at(d, 'evidence_storage', k) ?? null));
          const candidate = applyEdits(f.text, ev);
          if (location(parse(candidate) as Record<string, unknown>) !== location(f.doc)) {
            if (await this.rotationBlocked(ev)) throw errors.conflict('event_storage_rotation_blocked');
            await this.precheck(ev, f.doc);
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
        const now = await readPlaneToml(this.config.configFile!);
        const out: Record<string, unknown> = { dvr_export_max_secs: null, network: null, logging: null, evidence_storage: null };
        if (sections.includes('dvr_export_max_secs')) out.dvr_export_max_secs = at(now.doc, 'dvr_export_max_secs');
        if (sections.includes('network')) out.network = this.network(now.doc);
        if (sections.includes('log_level')) out.logging = this.logging(now.doc);
        if (sections.includes('evidence_storage')) out.evidence_storage = await this.evidence(now.doc);
        return { etag: now.etag, body: out };
      });
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
    const edits = evidenceEdits(body.evidence_storage, {}, true);
    await this.precheck(edits, (await this.read().catch(() => null))?.doc ?? {});
    return { ok: true, rotation_blocked: await this.rotationBlocked(edits) };
  }

  /**
   * The candidate storage of `edits` answers: a probe object written, read back, compared and
   * deleted; 502 with what failed. An s3 endpoint that resolves to a link-local or metadata
   * address is refused first (unless [network] allow_private_targets). Stored keys are used
   * when the candidate gives none.
   */
  private async precheck(edits: Edit[], saved: Record<string, unknown>): Promise<void> {
    const v = (k: string) => edits.find(([path]) => path[1] === k)?.[1];
    const bytes = randomBytes(64);
    const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
      try { return await run(); } catch (err) {
        const e = err as NodeJS.ErrnoException & { name?: string };
        throw errors.storageCheckFailed(`${what} failed: ${e.code ?? e.name ?? 'error'}`);
      }
    };
    if (v('backend') === 's3') {
      const host = String(v('endpoint')).replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
      if (!this.config.allowPrivateTargets) {
        const addrs = await step('resolve the endpoint', () => lookup(host, { all: true }));
        if (isForbiddenTarget(host) || addrs.some((a) => isForbiddenTarget(a.address))) throw errors.storageCheckFailed('the endpoint resolves to a link-local or metadata address');
      }
      const keep = (k: string) => (v(k) as string | undefined) ?? (at(saved, 'evidence_storage', k) as string | undefined) ?? null;
      const store = new S3EvidenceStorage({ endpoint: String(v('endpoint')), bucket: String(v('bucket')), region: String(v('region') ?? 'us-east-1'),
        https: v('https') !== false, addressing: v('addressing') === 'virtual_host' ? 'virtual_host' : 'path', accessKey: keep('access_key'), secretKey: keep('secret_key') });
      const key = `.argus-probe/${randomUUID()}`;
      await step('write a probe object', () => store.put(key, bytes, 'application/octet-stream'));
      const got = await step('read the probe object back', async () => {
        const o = await store.open(key);
        if (!o) throw Object.assign(new Error('missing'), { code: 'NoSuchKey' });
        const chunks: Buffer[] = [];
        for await (const c of o.body) chunks.push(c as Buffer);
        return Buffer.concat(chunks);
      });
      await step('delete the probe object', () => store.delete(key));
      if (!got.equals(bytes)) throw errors.storageCheckFailed('the probe object read back differs from what was written');
      return;
    }
    const dir = v('dir') as string;
    const probe = join(dir, `.argus-probe-${randomUUID()}`);
    await step('create the folder', () => mkdir(dir, { recursive: true }));
    await step('write a probe object', () => writeFile(probe, bytes));
    const back = await step('read the probe object back', () => readFile(probe));
    await step('delete the probe object', () => rm(probe));
    if (!back.equals(bytes)) throw errors.storageCheckFailed('the probe object read back differs from what was written');
  }

  /**
   * Whether moving to the candidate would retire a storage that still holds objects. This build
   * reads from one storage only, so such a move is refused (409 event_storage_rotation_blocked)
   * until the objects are gone, rather than leaving their events without their bytes.
   */
  private async rotationBlocked(edits: Edit[]): Promise<boolean> {
    const v = (k: string) => edits.find(([path]) => path[1] === k)?.[1];
    const c = this.config.evidence;
    const same = v('backend') === c.backend && (c.backend === 's3' ? v('endpoint') === c.s3?.endpoint && v('bucket') === c.s3?.bucket : v('dir') === c.dir);
    return !same && (await this.figures.totals()).attachments > 0;
  }

  private edits(body: SettingsPatch, saved: Record<string, unknown>, acknowledged: boolean): Edit[] {
    const edits: Edit[] = [];
    if (body.dvr_export_max_secs != null) edits.push(dvrEdit(body.dvr_export_max_secs));
    if (body.network) edits.push(...networkEdits(body.network));
    if (body.log_level != null) edits.push(levelEdit(body.log_level));
    if (body.evidence_storage) edits.push(...evidenceEdits(body.evidence_storage, saved, acknowledged));
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
    const saved = savedBackend === 's3'
      ? { backend: 's3', endpoint: at(doc, 'evidence_storage', 'endpoint') ?? null, bucket: at(doc, 'evidence_storage', 'bucket') ?? null,
        ...flags(at(doc, 'evidence_storage', 'access_key'), at(doc, 'evidence_storage', 'secret_key')) }
      : { backend: 'local', dir: String(at(doc, 'evidence_storage', 'dir') ?? c.evidence.dir) };
    const s3 = c.evidence.s3;
    const effective = {
      backend: c.evidence.backend, ...(s3 ? { endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, https: s3.https, addressing: s3.addressing, ...flags(s3.accessKey, s3.secretKey) } : { dir: c.evidence.dir }),
      max_bytes: c.evidencePressure.maxBytes, volume_retention: 'disabled',
      low_watermark_percent: c.evidencePressure.lowPercent, high_watermark_percent: c.evidencePressure.highPercent, critical_watermark_percent: c.evidencePressure.criticalPercent,
    };
    return {
      effective, saved,
      pending_restart: JSON.stringify([saved.backend, 'dir' in saved ? saved.dir : null, 'endpoint' in saved ? saved.endpoint : null, 'bucket' in saved ? saved.bucket : null])
        !== JSON.stringify([effective.backend, 'dir' in effective ? effective.dir : null, s3?.endpoint ?? null, s3?.bucket ?? null]),
      rotation_blocked: false, backend_divergence: null, stats: await this.stats(),
    };
  }

  /** Figures of the storage in use: the plane's own accounting, and the volume (statfs) or max_bytes. */
  private async stats() {
    const c = this.config;
    const [totals, events] = await Promise.all([this.figures.totals(), this.figures.eventsTotal()]);
    let capacity: number | null = c.evidencePressure.maxBytes;
    let available: number | null = capacity === null ? null : Math.max(0, capacity - totals.bytes);
    let physical: number | null = null;
    let state = 'ok';
    if (capacity === null) {
      try {
        const s = await statfsNearest(c.evidence.dir);
        capacity = (s.blocks - s.bfree + s.bavail) * s.bsize;
        available = s.bavail * s.bsize;
        physical = (s.blocks - s.bfree) * s.bsize;
      } catch { state = 'unavailable'; }
    }
    const used = capacity ? Math.round(((capacity - (available ?? 0)) / capacity) * 10_000) / 100 : 0;
    return {
      state, logical_bytes: totals.bytes, physical_bytes: physical ?? totals.bytes, event_count: events, attachment_count: totals.attachments,
      capacity_bytes: capacity, available_bytes: available, used_percent: used,
    };
  }
}
