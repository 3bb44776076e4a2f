import type { Readable } from 'node:stream';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { AuditService } from '../audit/audit.service.js';
import type { MeteredStorage } from './storage-operations.js';
import { recordDownload } from './download-audit.js';
import { evidenceStore } from './evidence.store.js';
import { inlineType } from './disposition.js';
import type { SnapshotLinks } from './snapshot-links.js';

/**
 * The types a snapshot may have: raster images every mail client and browser shows (no SVG, which
 * runs script; no AVIF or BMP, which many mail clients do not show).
 */
const SNAPSHOT_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
/** An event's attachments looked at for its snapshot, oldest first (an event carries a handful). */
const LOOKED_AT = 16;

/** The type a snapshot is served and mailed with: the stored one read exactly, or null when not a snapshot type. */
const snapshotType = (stored: string): string | null => {
  const t = inlineType(stored);
  return t !== null && SNAPSHOT_TYPES.has(t) ? t : null;
};

/** An event's snapshot as a message carries it. */
export interface EventSnapshot {
  ref: string;
  contentType: string;
  size: number;
  /** the signed link, valid 24 h from the moment it was made */
  url: string;
}

/** Who followed a link, for the audit. */
export interface LinkFollower {
  ip: string;
  userAgent: string;
}

/**
 * Notification snapshots (document 4 §13): an event's snapshot is its first image attachment; a
 * message carries a signed link to it (webhook, MQTT, e-mail) and an e-mail its bytes inline. A
 * link opens the attachment without a session: its signature is the right, for 24 h, to that one
 * attachment; each use is audited as a download (`data.blob_download`, `link: true`).
 */
export class SnapshotService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly storage: MeteredStorage,
    private readonly links: SnapshotLinks,
  ) {}

  /** The snapshot of an event of `orgId`, with a link made now; null when it has no image. */
  async of(orgId: string, eventId: string): Promise<EventSnapshot | null> {
    const all = await evidenceStore.ofEvent(this.db, orgId, eventId, LOOKED_AT);
    const a = all.find((x) => snapshotType(x.content_type) !== null);
    if (!a) return null;
    return {
      ref: a.ref,
      contentType: snapshotType(a.content_type)!,
      size: Number(a.size),
      url: this.links.urlOf(a.ref, this.clock.now()),
    };
  }

  /** A snapshot's bytes for a message, when they are still stored and at most `maxBytes`; else null. */
  async bytes(s: EventSnapshot, maxBytes: number): Promise<Buffer | null> {
    if (s.size > maxBytes) return null;
    const a = await evidenceStore.byRef(this.db, s.ref);
    const opened = a ? await this.storage.open(a.storage_key) : null;
    if (!opened) return null;
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of opened.body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        opened.body.destroy();
        return null;
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  /**
   * GET /api/v1/notification-snapshots/{ref}: a link's attachment. A signature that is not this
   * plane's (or a ref of another shape) is 404 `not_found`, like an absent attachment; a link past
   * its 24 h is 410 `snapshot_link_expired`; the bytes gone 404 `object_gone`; purged with its
   * event 410 `archived_data_expired`.
   */
  async open(
    ref: string,
    expires: string,
    signature: string,
    who: LinkFollower,
  ): Promise<{ size: number; contentType: string; body: Readable }> {
    const check = this.links.check(ref, expires, signature, this.clock.now());
    if (check === 'invalid') throw errors.notFound();
    if (check === 'expired') throw errors.snapshotLinkExpired();
    const a = await evidenceStore.byRef(this.db, ref);
    if (!a) throw (await evidenceStore.wasPurgedRef(this.db, ref)) ? errors.archivedDataExpired() : errors.notFound();
    // Links are only made for snapshot types; the type served is the one read exactly, never the stored text.
    const contentType = snapshotType(a.content_type);
    if (!contentType) throw errors.notFound();
    const opened = await this.storage.open(a.storage_key);
    if (!opened) throw errors.objectGone();
    await recordDownload(this.db, this.audit, opened, {
      actor: { id: null, name: 'snapshot link', role: 'link', orgId: a.org_id, ...who },
      orgId: a.org_id,
      ref,
      contentType: a.content_type,
      params: { preview: false, link: true },
    });
    return { size: opened.size, contentType, body: opened.body };
  }
}
