import type { Readable } from 'node:stream';
import type { Db } from '../db/database.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';

/**
 * Records one download of an attachment's bytes (document 2: `data.blob_download`, params size and
 * preview, a snapshot link's `link: true`) before they are sent; an audit that cannot be written
 * closes the opened body, so nothing is served unaudited and no stream is left open.
 */
export async function recordDownload(
  db: Db,
  audit: AuditService,
  opened: { size: number; body: Readable },
  d: { actor: AuditActor; orgId: string; ref: string; contentType: string; params: Record<string, unknown> },
): Promise<void> {
  try {
    await db.transaction().execute((trx) =>
      audit.record(trx, {
        actor: d.actor,
        orgId: d.orgId,
        action: 'data.blob_download',
        objectType: 'attachment',
        objectId: d.ref,
        objectName: d.contentType,
        params: { size: opened.size, ...d.params },
      }),
    );
  } catch (err) {
    opened.body.destroy();
    throw err;
  }
}
