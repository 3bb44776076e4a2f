import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import type { ModuleTokenCredential } from '../module-tokens/module-tokens.types.js';
import type { Principal } from '../http/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import { cameraScope } from '../rights/camera-rights.js';
import { Readable } from 'node:stream';
import { receiveWhole, UploadGate } from './upload-gate.js';
import { recordDownload } from './download-audit.js';
import { evidenceStore, type AttachmentRecord } from './evidence.store.js';
import { storageKey } from './evidence.storage.js';
import { previewKey } from './preview.builder.js';
import type { EvidenceFullness } from './fullness.js';
import type { MeteredStorage, OperationFigures } from './storage-operations.js';

/** One attachment is at most 16 MiB (document 2, limits). */
export const ATTACHMENT_MAX_BYTES = 16 * 1024 * 1024;
const DEFAULT_TYPE = 'application/octet-stream';
// Storage deletions in flight at once (deleteBytes).
const DELETES_AT_ONCE = 16;

export function normaliseContentType(raw: string | undefined): string {
  const t = (raw ?? '').trim();
  // Kept as sent, within reason: printable ASCII, bounded.
  return t && t.length <= 255 && /^[\x20-\x7e]+$/.test(t) ? t : DEFAULT_TYPE;
}

/**
 * Evidence attachments: bytes in the storage backend, metadata and per-organisation accounting
 * in the database. Bytes are written first (atomically), then the metadata row and the usage
 * are committed under the organisation's lock, so the quota cannot be overshot by racing
 * uploads; on refusal or failure the written bytes are removed again.
 */
export class EvidenceService {
  private busy = 0;
  private readonly uploads = new UploadGate();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly orgs: OrgsService,
    private readonly audit: AuditService,
    /** the backend, its operations counted (settings: stats.operations) */
    readonly storage: MeteredStorage,
    /** refuses uploads at the critical watermark (507 evidence_storage_full) */
    private readonly fullness: EvidenceFullness,
    /** told of every stored attachment after its commit (the preview builder queues it) */
    private readonly stored: (a: { ref: string; storageKey: string; contentType: string }) => void = () => {},
    /** concurrent attachment responses of this process (document 2: 4) */
    private readonly slots = 4,
  ) {}

  /**
   * Takes a response slot; the returned release is idempotent. Over the limit: 429
   * event_response_busy. A slot is held until the body ends or the connection breaks.
   */
  takeSlot(): () => void {
    if (this.busy >= this.slots) throw errors.eventResponseBusy();
    this.busy++;
    let held = true;
    return () => {
      if (held) {
        held = false;
        this.busy--;
      }
    };
  }

  /**
   * An attachment's bytes for a download: camera rights checked on every request (absent or not
   * yours: 404 not_found; bytes gone: 404 object_gone); each success audited as data.blob_download.
   */
  async download(p: Principal, rawRef: string): Promise<{ size: number; contentType: string; body: Readable }> {
    const ref = rawRef.toLowerCase();
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(ref)) throw errors.notFound();
    const a = await evidenceStore.visible(this.db, cameraScope(p), ref);
    if (!a)
      throw (await evidenceStore.wasPurged(this.db, cameraScope(p), ref))
        ? errors.archivedDataExpired()
        : errors.notFound();
    const opened = await this.storage.open(a.storage_key);
    if (!opened) throw errors.objectGone();
    await recordDownload(this.db, this.audit, opened, {
      actor: actorOf(p),
      orgId: a.org_id,
      ref,
      contentType: a.content_type,
      params: { preview: false },
    });
    return { size: opened.size, contentType: a.content_type, body: opened.body };
  }

  async upload(token: ModuleTokenCredential, contentType: string | undefined, bytes: Uint8Array) {
    return this.uploadStream(
      token,
      contentType,
      Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]),
      bytes.length,
    );
  }

  /**
   * An upload streamed to storage (never whole in memory), at most `UploadGate.max` at once;
   * `declaredSize` (Content-Length) allows refusing early, the bytes received decide.
   */
  async uploadStream(
    token: ModuleTokenCredential,
    contentType: string | undefined,
    body: Readable,
    declaredSize?: number,
  ) {
    if (declaredSize !== undefined && declaredSize > ATTACHMENT_MAX_BYTES) throw errors.attachmentTooLarge();
    const orgId = token.org_id;
    await this.fullness.admit();
    // Early refusal without writing anything; rechecked under the lock below.
    await this.checkQuota(this.db, orgId, declaredSize ?? 0);
    const release = await this.uploads.enter();
    try {
      const now = new Date(this.clock.now());
      const ref = uuidv7({ msecs: now.getTime() });
      const key = storageKey(orgId, ref, now);
      const type = normaliseContentType(contentType);
      const got = this.storage.putStream
        ? await this.storage.putStream(key, body, type, ATTACHMENT_MAX_BYTES)
        : await receiveWhole(body, ATTACHMENT_MAX_BYTES).then(async (r) => {
            await this.storage.put(key, r.bytes, type);
            return r;
          });
      try {
        await this.db.transaction().execute(async (trx) => {
          await this.checkQuota(trx, orgId, got.size);
          await evidenceStore.insert(trx, {
            ref,
            org_id: orgId,
            token_id: token.id,
            backend: this.storage.backend,
            storage_key: key,
            content_type: type,
            size: got.size,
            sha256: got.sha256,
            camera_id: null,
            event_id: null,
            created_at: now,
          });
          await evidenceStore.addUsage(trx, orgId, got.size, 1);
        });
      } catch (err) {
        await this.storage.delete(key).catch(() => {});
        throw err;
      }
      this.stored({ ref, storageKey: key, contentType: type });
      return { ref, size: got.size, content_type: type };
    } finally {
      release();
    }
  }

  private async checkQuota(db: Db, orgId: string, size: number): Promise<void> {
    // Outside a transaction the row lock ends with the statement: a plain read.
    const limits = await this.orgs.lockLimits(db, orgId);
    if (!limits) throw errors.unauthorized();
    const quota = limits.attachment_quota_bytes;
    if (quota === null) return;
    const used = await evidenceStore.usage(db, orgId);
    if (used.bytes + size > Number(quota)) throw errors.attachmentQuotaExceeded();
  }

  /** Bytes and attachments stored, every organisation together (settings: evidence storage stats). */
  totals(): Promise<{ bytes: number; attachments: number }> {
    return evidenceStore.totals(this.db);
  }

  /** How full the storage is, in percent (the sweeper's pressure levels, volume retention's watermarks). */
  usedPercent(): Promise<number> {
    return this.fullness.usedPercent();
  }

  /** Uploads refused at the critical watermark (settings: stats.pressure_dropped_attachments). */
  pressureDropped(): Promise<number> {
    return this.fullness.pressureDropped();
  }

  /** Live figures of this process's storage operations (settings: stats.operations). */
  operations(): OperationFigures {
    return this.storage.figures();
  }

  /** Bytes and count of an organisation's attachments (quota usage figures). */
  usage(orgId: string): Promise<{ bytes: number; attachments: number }> {
    return evidenceStore.usage(this.db, orgId);
  }

  /** The organisation's attachments among `refs` (intake checks references with one query). */
  ofOrg(
    db: Db,
    orgId: string,
    refs: string[],
  ): Promise<Array<Pick<AttachmentRecord, 'ref' | 'camera_id' | 'content_type' | 'size'>>> {
    return evidenceStore.ofOrg(db, orgId, refs);
  }

  /**
   * The attachments of purged events: metadata and usage go in the caller's transaction; call
   * deleteBytes with the result after it commits (bytes left by a crash in between are orphans,
   * never a dangling row).
   */
  purgeOfEvents(
    trx: Db,
    events: Array<{ id: string; occurred_at: Date }>,
  ): Promise<Array<{ ref: string; storage_key: string; size: number }>> {
    return evidenceStore.purgeOfEvents(trx, events, new Date(this.clock.now()));
  }

  /**
   * Up to `limit` attachments of a deleted organisation, in the caller's transaction: bytes first,
   * then the rows, so a failure in between leaves rows that the next run deletes again and never
   * bytes without a row. Returns how many went.
   */
  async removeOfOrg(trx: Db, orgId: string, limit: number): Promise<number> {
    const batch = await evidenceStore.ofOrgForRemoval(trx, orgId, limit);
    if (!batch.length) return 0;
    await this.deleteBytes(batch.map((a) => a.storage_key));
    await evidenceStore.removeRows(trx, batch, new Date(this.clock.now()));
    return batch.length;
  }

  /** Pruning: forgets up to `limit` removed attachments older than `before`; returns how many. */
  prunePurged(before: Date, limit: number): Promise<number> {
    return evidenceStore.prunePurged(this.db, before, limit);
  }

  async deleteBytes(keys: string[]): Promise<void> {
    // A preview is evidence too: it goes with the bytes it was made from. A few deletions at
    // once: an archive cleanup's batch names thousands (issue 26), one after the other waited
    // on each file system or S3 round trip in turn.
    const all = keys.flatMap((k) => [k, previewKey(k)]);
    let next = 0;
    const worker = async () => {
      while (next < all.length) await this.storage.delete(all[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(DELETES_AT_ONCE, all.length) }, worker));
  }

  link(
    trx: Db,
    links: Array<{ ref: string; camera_id: string | null; event_id: string; occurred_at: Date }>,
  ): Promise<void> {
    return evidenceStore.link(trx, links);
  }
}
