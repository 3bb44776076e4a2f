import { parse } from '@decimalturn/toml-patch';
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
import { evidenceStorageSection, loggingSection, networkSection, type SettingsStats } from './settings.reply.js';
import { locationOf, retireEdits, rotationBlocked, sameStorage } from './storage-rotation.js';
import { checkTlsCa, notificationsEdits, notificationsSection } from './notifications.section.js';

const LOCK_TIMEOUT = '55P03';

const SECTIONS = ['dvr_export_max_secs', 'network', 'log_level', 'evidence_storage', 'notifications'] as const;
type Section = (typeof SECTIONS)[number];

/** The sections a PATCH supplies: absent or null ones are left alone, and one at least is needed. */
function suppliedSections(body: SettingsPatch): Section[] {
  const sections = SECTIONS.filter((k) => body[k] !== undefined && body[k] !== null);
  if (!sections.length) throw errors.badRequest('no_settings_supplied');
  return sections;
}

/**
 * Control-plane settings (document 1, document 4 §10): plane.toml read and edited in place,
 * under a lock held in the database, guarded by the file's hash (ETag / If-Match). Network and
 * evidence storage apply at the next start (`pending_restart`); the log level applies at once
 * unless RUST_LOG / ARGUS_LOG own it.
 */
export class SettingsService {
  constructor(
    private readonly db: Db,
    private readonly config: PlaneConfig,
    private readonly audit: AuditService,
    private readonly logs: PlaneLogService,
    private readonly stats: SettingsStats,
    private readonly certificate: () => CertificateDescription,
    private readonly lockWaitMs = 10_000,
  ) {}

  private async read(): Promise<TomlFile> {
    if (!this.config.configFile) throw errors.planeConfigUnreadable('no settings file');
    try {
      return await readPlaneToml(this.config.configFile);
    } catch (err) {
      throw errors.planeConfigUnreadable(
        (err as NodeJS.ErrnoException).code ?? (err as Error).message.split('\n')[0]!.slice(0, 200),
      );
    }
  }

  async get(): Promise<{ etag: string; body: Record<string, unknown> }> {
    const f = await this.read();
    return {
      etag: f.etag,
      body: {
        source: this.config.configFile,
        dvr_export_max_secs: at(f.doc, 'dvr_export_max_secs') ?? 3600,
        network: networkSection(f.doc, this.config, this.certificate()),
        logging: loggingSection(f.doc, this.config, this.logs.level()),
        evidence_storage: await evidenceStorageSection(f.doc, this.config, this.stats),
        notifications: notificationsSection(f.doc, this.config),
      },
    };
  }

  async patch(
    p: Principal,
    body: SettingsPatch,
    ifMatch: string | undefined,
  ): Promise<{ etag: string; body: Record<string, unknown> }> {
    const sections = suppliedSections(body);
    await this.checkValues(body);
    try {
      const now = await this.db.transaction().execute(async (trx) => {
        await settingsStore.lock(trx, this.lockWaitMs);
        const f = await this.read();
        if (ifMatch !== undefined && ifMatch !== f.etag && ifMatch !== '*') throw errors.conflict('settings_changed');
        const edits = this.edits(body, f.doc, body.acknowledge_destructive_volume_retention === true);
        if (body.evidence_storage) edits.push(...(await this.storageMove(f, edits)));
        const text = applyEdits(f.text, edits);
        if (text !== f.text) await this.save(trx, p, body, sections, f, text);
        return readPlaneToml(this.config.configFile!);
      });
      // The reply after the commit: its figures read the database, which the embedded one serves one transaction at a time.
      return { etag: now.etag, body: await this.touched(now.doc, sections) };
    } catch (err) {
      if (!(err instanceof ApiError) && (err as { code?: string }).code === LOCK_TIMEOUT)
        throw errors.conflict('settings_busy');
      throw err;
    }
  }

  /** A PATCH's values, checked before the file and the lock (the acknowledgement rule needs the saved file: it is checked again under the lock). */
  private async checkValues(body: SettingsPatch): Promise<void> {
    if (body.log_level !== undefined && body.log_level !== null && this.config.logLevelEnv)
      throw errors.rustLogOverride();
    this.edits(body, null, true);
    await checkTlsCa(body.notifications);
    // pem files are read when saved, as the start will read them (issue 25): a pair that cannot be served is a 400, not a plane that will not start.
    const tls = body.network?.tls;
    if (tls?.mode === 'pem') {
      await readPemPair(String(tls.cert), String(tls.key)).catch((err: unknown) => {
        throw err instanceof PemProblem ? errors.settingsInvalid(err.message) : err;
      });
    }
  }

  /**
   * When the evidence edits move the storage (another backend, folder, endpoint or bucket): 409
   * while the retired storage still holds objects, the candidate pre-checked, and the edits that
   * retire the storages it leaves. No move: no edit.
   */
  private async storageMove(f: TomlFile, edits: Edit[]): Promise<Edit[]> {
    const ev = edits.filter(([path]) => path[0] === 'evidence_storage');
    const location = (d: Record<string, unknown>) =>
      JSON.stringify(['backend', 'dir', 'endpoint', 'bucket'].map((k) => at(d, 'evidence_storage', k) ?? null));
    const candidate = parse(applyEdits(f.text, ev)) as Record<string, unknown>;
    if (location(candidate) === location(f.doc)) return [];
    if (await rotationBlocked(f.doc, this.config)) throw errors.conflict('event_storage_rotation_blocked');
    await precheckStorage(ev, f.doc, this.config);
    return retireEdits(f.doc, locationOf(at(candidate, 'evidence_storage'), this.config)!, this.config);
  }

  /**
   * Writes the changed `text` over the file read as `f`, applies the log level live and audits
   * `settings.update` in `trx`; if the level or the audit fails, the old text is written back.
   */
  private async save(
    trx: Db,
    p: Principal,
    body: SettingsPatch,
    sections: Section[],
    f: TomlFile,
    text: string,
  ): Promise<void> {
    // The file may have been edited by hand since it was read: refuse rather than overwrite.
    if ((await readPlaneToml(this.config.configFile!)).etag !== f.etag) throw errors.conflict('settings_changed');
    await writePlaneToml(this.config.configFile!, text);
    try {
      if (body.log_level != null) this.logs.setCaptureLevel(body.log_level as never);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: null,
        action: 'settings.update',
        objectType: 'settings',
        objectId: null,
        objectName: 'plane.toml',
        params: { sections: [...sections].sort(), ...(body.log_level != null ? { log_level: body.log_level } : {}) },
      });
    } catch (err) {
      await writePlaneToml(this.config.configFile!, f.text);
      if (body.log_level != null) this.logs.setCaptureLevel(this.config.logLevel);
      throw err;
    }
  }

  /** A PATCH's reply: the sections it touched as saved now, the others null. */
  private async touched(doc: Record<string, unknown>, sections: Section[]): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {
      dvr_export_max_secs: null,
      network: null,
      logging: null,
      evidence_storage: null,
      notifications: null,
    };
    if (sections.includes('dvr_export_max_secs')) out.dvr_export_max_secs = at(doc, 'dvr_export_max_secs');
    if (sections.includes('network')) out.network = networkSection(doc, this.config, this.certificate());
    if (sections.includes('log_level')) out.logging = loggingSection(doc, this.config, this.logs.level());
    if (sections.includes('evidence_storage'))
      out.evidence_storage = await evidenceStorageSection(doc, this.config, this.stats);
    if (sections.includes('notifications')) out.notifications = notificationsSection(doc, this.config);
    return out;
  }

  /**
   * POST .../evidence-storage/test: the candidate is checked as a PATCH would check it, then a
   * probe object is written, read back and deleted in it; nothing is saved. A failure is 502 with
   * what failed (no secret in it).
   */
  async testStorage(body: {
    evidence_storage: Record<string, unknown>;
  }): Promise<{ ok: boolean; rotation_blocked: boolean }> {
    // A check, not a change: the acknowledgement of a retention policy is the PATCH's business.
    const saved = (await this.read().catch(() => null))?.doc ?? {};
    // Against the saved section: omitted keys are the stored ones only for the endpoint they were saved with.
    const edits = evidenceEdits(body.evidence_storage, saved, true, this.config.dataDir);
    await precheckStorage(edits, saved, this.config);
    const next = locationOf(Object.fromEntries(edits.map(([path, value]) => [path[1], value])), this.config)!;
    if (
      sameStorage(
        next,
        locationOf({ backend: 'local', ...(at(saved, 'evidence_storage') as object | undefined) }, this.config)!,
      )
    )
      return { ok: true, rotation_blocked: false };
    const blocked =
      (await rotationBlocked(saved, this.config)) ||
      (await retireEdits(saved, next, this.config).then(
        () => false,
        (err: unknown) => {
          if (err instanceof ApiError && err.status === 409) return true;
          throw err;
        },
      ));
    return { ok: true, rotation_blocked: blocked };
  }

  /** The edits of a PATCH; `saved` null: before the file is read (values checked, nothing kept yet). */
  private edits(body: SettingsPatch, saved: Record<string, unknown> | null, acknowledged: boolean): Edit[] {
    const edits: Edit[] = [];
    if (body.dvr_export_max_secs != null) edits.push(dvrEdit(body.dvr_export_max_secs));
    if (body.network) edits.push(...networkEdits(body.network));
    if (body.log_level != null) edits.push(levelEdit(body.log_level));
    if (body.evidence_storage)
      edits.push(...evidenceEdits(body.evidence_storage, saved ?? {}, acknowledged, this.config.dataDir));
    if (body.notifications) edits.push(...notificationsEdits(body.notifications, saved, this.config));
    return edits;
  }
}
