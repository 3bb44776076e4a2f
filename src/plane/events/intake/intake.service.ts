import type { Logger } from 'pino';
import type { Clock } from '../../../common/clock.js';
import { iso } from '../../../common/time.js';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { EvidenceService } from '../../evidence/evidence.service.js';
import type { ModuleTokensService } from '../../module-tokens/module-tokens.service.js';
import type { ModuleTokenCredential } from '../../module-tokens/module-tokens.types.js';
import { eventId } from '../log/events.ids.js';
import type { EventCamera, EventInsert, NewEvent } from '../log/events.types.js';
import type { NewFrame } from '../log/events.frames.js';
import type { EventLog } from '../log/event-log.js';
import { streamCursor } from '../log/cursor.js';
import { validateItem, type IntakeItem, type ItemError } from './intake.validate.js';
import type { IntakeRateLimiter } from './rate-limit.js';
import type { TemplateCache } from '../../templates/template.cache.js';
import { titleWords, type Applied } from '../../templates/template.apply.js';
import { applyTemplates, coalesceRepeats, timeoutCloseBy, type CoalescedOpen } from './intake.templates.js';
import { MAX_BATCH, type IntakeReply } from './intake.schemas.js';

export type ItemResult =
  { index: number; id: string } | { index: number; error: ItemError } | { index: number; ignored: true };

interface Ready {
  index: number;
  item: IntakeItem;
  applied: Applied | null;
  id: string;
  camera: EventCamera | null;
  attachments: string;
  coalesced?: CoalescedOpen;
}

/**
 * THE camera rule of intake, for both write paths: an item that names a camera which is not
 * one of its organisation's cameras (as the log's one SQL finds them) fails alone with
 * unknown_camera. The one-statement path applies it in SQL (such a row is not inserted), the
 * full path before its insert; test/plane/events/intake.paths.test.ts holds them equal.
 */
function unknownCamera(item: IntakeItem, camera: EventCamera | null | undefined): boolean {
  return item.cameraId !== null && !camera;
}

/**
 * Event intake by modules (document 4 §4): a batch of up to 500 items, each checked on its
 * own; one transaction writes the whole batch with one multi-row INSERT; its notice goes out
 * after commit (at most one NOTIFY per batch). The same ext_id from the same token names the
 * first event for ever.
 */
export class IntakeService {
  constructor(
    private readonly clock: Clock,
    private readonly tokens: ModuleTokensService,
    private readonly evidence: EvidenceService,
    private readonly limiter: IntakeRateLimiter,
    private readonly log: EventLog,
    private readonly templates: TemplateCache,
  ) {}

  /**
   * `stream_cursor` of the reply: the position just before this batch's first event (the
   * stream then delivers the batch and what follows), or a safe head when nothing was written.
   */
  async ingest(token: ModuleTokenCredential, events: unknown[]): Promise<IntakeReply> {
    if (!Array.isArray(events) || events.length < 1 || events.length > MAX_BATCH) throw errors.badRequest('bad_events');
    const wait = this.limiter.take(token.id, token.rate_limit, events.length);
    if (wait > 0) {
      await this.mustBeEnabled(token);
      throw errors.rateLimited(wait);
    }
    const now = this.clock.now();
    const results: ItemResult[] = new Array(events.length);
    const checked: Array<{ index: number; item: IntakeItem }> = [];
    events.forEach((raw, index) => {
      const v = validateItem(raw, now);
      if ('error' in v) results[index] = { index, error: v.error };
      else checked.push({ index, item: v });
    });
    // Cached per organisation: no query unless its templates changed.
    const { keep: valid, ignored } = applyTemplates(await this.templates.forOrg(token.org_id), checked);
    for (const index of ignored) results[index] = { index, ignored: true };

    const written = await this.write(token, valid, results);
    // The position just before the batch's first event, or a safe head when nothing was written.
    if (!written) return { results, stream_cursor: await this.log.headCursor() };
    return { results, stream_cursor: streamCursor({ head: written.first - 1, purge_day: written.purgeDay }) };
  }

  /**
   * A token from the process's cache (authenticateCached) answers without writing only once the
   * database confirms it: a disabled, rotated or deleted token gets 401, never 200 or 429.
   */
  private async mustBeEnabled(token: ModuleTokenCredential): Promise<void> {
    if (!(await this.tokens.verify(token))) throw errors.unauthorized();
  }

  /** A 401 of the write itself (the token refused after the scope let it in) goes to the log as the scope's do. */
  noteRefused(log: Logger, ip: string): void {
    this.tokens.noteRefused(log, ip, 'POST /api/v1/events', 'unknown_or_disabled');
  }

  /** Cameras and attachments of the items: an item naming one outside the organisation fails alone. */
  private async resolve(
    trx: Db,
    token: ModuleTokenCredential,
    valid: Array<{ index: number; item: IntakeItem; applied: Applied | null }>,
    cams: EventCamera[],
    results: ItemResult[],
  ): Promise<Ready[]> {
    const camById = new Map(cams.map((c) => [c.id, c]));
    const refs = [...new Set(valid.flatMap((v) => v.item.attachments))];
    const atts = new Map((await this.evidence.ofOrg(trx, token.org_id, refs)).map((a) => [a.ref, a]));
    const ready: Ready[] = [];
    for (const { index, item, applied } of valid) {
      const camera = item.cameraId ? (camById.get(item.cameraId) ?? null) : null;
      let error: ItemError | null = unknownCamera(item, camera) ? 'unknown_camera' : null;
      for (const ref of item.attachments) {
        if (error) break;
        const a = atts.get(ref);
        if (!a) error = 'unknown_attachment';
        else if (a.camera_id !== null && a.camera_id !== item.cameraId) error = 'attachment_camera_mismatch';
      }
      if (error) {
        results[index] = { index, error };
        continue;
      }
      const attachments = JSON.stringify(
        item.attachments.map((ref) => ({
          ref,
          content_type: atts.get(ref)!.content_type,
          size: Number(atts.get(ref)!.size),
        })),
      );
      ready.push({ index, item, applied, id: eventId(item.occurredAt), camera, attachments });
    }
    return ready;
  }

  /**
   * A batch without ext_id, attachment or coalescing repeat, whose token use is not due to be
   * recorded: one statement in its own transaction (EventLog.insertAlone). Null when the batch
   * needs the full write.
   */
  private async writeAlone(
    token: ModuleTokenCredential,
    valid: Array<{ index: number; item: IntakeItem; applied: Applied | null }>,
    results: ItemResult[],
  ) {
    if (this.tokens.touchDue(token)) return null;
    for (const v of valid)
      if (v.item.extId !== null || v.item.attachments.length || (v.applied?.coalesce && !v.item.interval)) return null;
    const cameraIds = [...new Set(valid.flatMap((v) => v.item.cameraId ?? []))];
    // The camera is not looked up here: the log's one statement finds it (and leaves out a row naming none).
    const ready: Ready[] = valid.map(({ index, item, applied }) => ({
      index,
      item,
      applied,
      id: eventId(item.occurredAt),
      camera: null,
      attachments: '[]',
    }));
    const sent = this.clock.now();
    const {
      purge_day,
      token: found,
      inserted,
    } = await this.log.insertAlone(
      token.org_id,
      { id: token.id, secret_sha256: token.secret_sha256 },
      ready.map((r) => newEvent(token.org_id, r)),
      cameraIds,
    );
    this.tokens.confirmed(token, found, sent);
    if (!found) throw errors.unauthorized();
    let first = Infinity;
    for (const r of ready) {
      const i = inserted.get(r.id);
      if (!i || unknownCamera(r.item, i.camera)) {
        results[r.index] = { index: r.index, error: 'unknown_camera' };
        continue;
      }
      if (i.seq < first) first = i.seq;
      results[r.index] = { index: r.index, id: r.id };
    }
    return { first, purgeDay: purge_day };
  }

  /** The batch's first position and the purge day it was written under; null when nothing was written. */
  private async write(
    token: ModuleTokenCredential,
    valid: Array<{ index: number; item: IntakeItem; applied: Applied | null }>,
    results: ItemResult[],
  ): Promise<{ first: number; purgeDay: string | null } | null> {
    if (!valid.length) {
      await this.mustBeEnabled(token);
      return null;
    }
    const alone = await this.writeAlone(token, valid, results);
    if (alone) return Number.isFinite(alone.first) ? alone : null;
    const cameraIds = [...new Set(valid.flatMap((v) => v.item.cameraId ?? []))];
    return this.log.write(async (w) => {
      if (!(await this.tokens.verify(token, w.trx))) throw errors.unauthorized();
      // The camera lookup rides along; the writers are joined only by the insert.
      const { purge_day, cameras } = await w.prepare(token.org_id, cameraIds);
      const ready = await this.resolve(w.trx, token, valid, cameras, results);
      // Idempotency first: keys of this batch, the first item of a repeated ext_id wins.
      const firstOf = new Map<string, Ready>();
      const fresh: Ready[] = [];
      const repeats: Ready[] = [];
      for (const r of ready) {
        const ext = r.item.extId;
        if (ext === null) fresh.push(r);
        else if (firstOf.has(ext)) repeats.push(r);
        else {
          firstOf.set(ext, r);
          fresh.push(r);
        }
      }
      if (firstOf.size) {
        const claimed = await w.claimExtIds(
          token.id,
          [...firstOf.values()].map((r) => ({
            ext_id: r.item.extId!,
            event_id: r.id,
            occurred_at: new Date(r.item.occurredAt),
          })),
        );
        const known = [...firstOf.keys()].filter((e) => !claimed.has(e));
        const existing = await w.extIdsOf(token.id, known);
        for (const ext of known) firstOf.get(ext)!.id = existing.get(ext)!;
        for (let i = fresh.length - 1; i >= 0; i--) {
          const ext = fresh[i]!.item.extId;
          if (ext !== null && !claimed.has(ext)) {
            repeats.push(fresh[i]!);
            fresh.splice(i, 1);
          }
        }
      }
      // Repeats that a template coalesces join an open interval instead of becoming events.
      const joined = await coalesceRepeats(w, token.org_id, token.id, fresh);
      for (const j of joined) {
        fresh.splice(fresh.indexOf(j.r), 1);
        results[j.r.index] = { index: j.r.index, id: j.target };
      }
      for (const r of fresh) results[r.index] = { index: r.index, id: r.id };
      for (const r of repeats)
        results[r.index] = {
          index: r.index,
          id:
            (results[firstOf.get(r.item.extId!)!.index] as { id?: string } | undefined)?.id ??
            firstOf.get(r.item.extId!)!.id,
        };

      await this.tokens.touch(w.trx, token);
      await this.evidence.link(
        w.trx,
        [
          ...fresh.map((r) => ({ r, id: r.id, occ: r.item.occurredAt })),
          ...joined.map((j) => ({ r: j.r, id: j.target, occ: j.targetOcc })),
        ].flatMap(({ r, id, occ }) =>
          r.item.attachments.map((ref) => ({
            ref,
            camera_id: r.item.cameraId,
            event_id: id,
            occurred_at: new Date(occ),
          })),
        ),
      );
      if (!fresh.length) return null;
      const seqs = await w.insert(
        token.org_id,
        token.id,
        fresh.map((r) => newEvent(token.org_id, r)),
      );
      return { first: Math.min(...seqs.values()), purgeDay: purge_day };
    });
  }
}

/** An item ready to be written as the log takes it: its row and its frame, built together. */
function newEvent(orgId: string, r: Ready): NewEvent {
  const row = insertOf(r);
  return { row, frame: frameOf(orgId, row, r) };
}

function insertOf(r: Ready): EventInsert {
  const it = r.item;
  const a = r.applied;
  // The template's title, when it has one, is the event's title; else the producer's.
  const title = a?.title ?? it.detectorTitle;
  const words = [
    it.detector,
    it.subjectType,
    it.subjectRef,
    it.extId,
    ...titleWords(title),
    ...(a?.words ?? []),
  ].filter((w) => w);
  const closeBy = r.coalesced?.closeBy ?? timeoutCloseBy(a, it);
  return {
    id: r.id,
    occurred_at: new Date(it.occurredAt),
    camera_id: it.cameraId,
    node_id: r.camera?.node_id ?? null,
    category: 'camera',
    detector: it.detector,
    detector_title: title === null ? null : JSON.stringify(title),
    severity: it.severity,
    confidence: it.confidence,
    interval: it.interval || !!r.coalesced,
    ended_at: it.endedAt === null ? null : new Date(it.endedAt),
    template_id: a?.template_id ?? null,
    subject_type: it.subjectType,
    subject_ref: it.subjectRef,
    ext_id: it.extId,
    list_values: a ? JSON.stringify(a.list_values) : '[]',
    fields: a ? JSON.stringify(a.fields) : '{}',
    payload: it.payloadJson,
    attachments: r.attachments,
    search_text: words.join(' '),
    search_tokens: a?.tokens ?? [],
    coalesce_key: r.coalesced?.key ?? null,
    last_seen_at: r.coalesced ? new Date(r.coalesced.lastSeen) : null,
    close_by: closeBy === null ? null : new Date(closeBy),
  };
}

function frameOf(orgId: string, row: EventInsert, r: Ready): NewFrame {
  const camera = r.camera;
  return {
    id: row.id,
    occurred_at: iso(row.occurred_at),
    ended_at: row.ended_at === null ? null : iso(row.ended_at),
    org_id: orgId,
    camera_id: row.camera_id,
    camera_name: camera?.name ?? null,
    node_id: row.node_id,
    node_name: camera?.node_name ?? null,
    detector: row.detector,
    detector_title: r.applied?.title ?? r.item.detectorTitle,
    category: row.category,
    severity: row.severity,
    template_id: row.template_id,
    interval: row.interval,
    confidence: row.confidence,
    subject_type: row.subject_type,
    subject_ref: row.subject_ref,
    ext_id: row.ext_id,
    list_values: r.applied?.list_values ?? [],
    starred: false,
    updated: false,
    deleted: false,
  };
}
