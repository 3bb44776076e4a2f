import type { Readable } from 'node:stream';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import { cameraScope } from '../rights/camera-rights.js';
import { recordDownload } from './download-audit.js';
import { evidenceStore } from './evidence.store.js';
import type { EvidenceStorage } from './evidence.storage.js';
import { previewKey, type PreviewBuilder } from './preview.builder.js';

const REF_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Attachment previews (document 2): the same rights and answers as a download, checked on every request
 * against the attachment's camera; the bytes a small JPEG built in the background. A preview
 * that is not there (type without one, not built yet, build failed) is 404 no_preview, and a
 * request for a missing one queues its build, so a restart that lost the queue heals on retry.
 */
export class PreviewService {
  constructor(
    private readonly db: Db,
    private readonly audit: AuditService,
    private readonly storage: EvidenceStorage,
    readonly builder: PreviewBuilder,
  ) {}

  /** The preview job counts as one failed job while its last build failed (settings: stats.failed_jobs). */
  failedJobs(): number {
    return this.builder.lastRunFailed() ? 1 : 0;
  }

  async preview(p: Principal, rawRef: string): Promise<{ size: number; body: Readable }> {
    const ref = rawRef.toLowerCase();
    if (!REF_RE.test(ref)) throw errors.notFound();
    const a = await evidenceStore.visible(this.db, cameraScope(p), ref);
    // Purged (its event's history was deleted): 410 to those who would have seen it, as for downloads.
    if (!a)
      throw (await evidenceStore.wasPurged(this.db, cameraScope(p), ref))
        ? errors.archivedDataExpired()
        : errors.notFound();
    // The evidence itself decides: its bytes gone means the preview is gone with them.
    if (!(await this.storage.exists(a.storage_key))) throw errors.objectGone();
    const opened = await this.storage.open(previewKey(a.storage_key));
    if (!opened) {
      this.builder.request({ ref, storageKey: a.storage_key, contentType: a.content_type });
      throw errors.noPreview();
    }
    await recordDownload(this.db, this.audit, opened, {
      actor: actorOf(p),
      orgId: a.org_id,
      ref,
      contentType: a.content_type,
      params: { preview: true },
    });
    return opened;
  }
}
