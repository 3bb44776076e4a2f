import { apply, type Applied, type OrgTemplates } from '../../templates/template.apply.js';
import type { LogWrite } from '../log/event-log.js';
import type { IntakeItem } from './intake.validate.js';

/**
 * Templates at intake (document 4 §5): the template a detector matches gives the event its
 * title, list values, typed fields and their `key:value` search lexemes; a system template with
 * ignore_event drops the event; `coalesce` folds repeats into one open interval, and
 * `interval_timeout_secs` sets when the plane closes an open interval (close_by).
 */
export interface Templated {
  index: number;
  item: IntakeItem;
  applied: Applied | null;
}

/** The coalescing state a new coalesced interval is written with. */
export interface CoalescedOpen {
  key: string;
  lastSeen: number;
  closeBy: number;
}

/** Applies the catalogue to valid items; returns the items to store and the indexes of ignored ones. */
export function applyTemplates(
  catalog: OrgTemplates,
  valid: Array<{ index: number; item: IntakeItem }>,
): { keep: Templated[]; ignored: number[] } {
  const keep: Templated[] = [];
  const ignored: number[] = [];
  for (const v of valid) {
    const t = catalog.size ? catalog.match(v.item.detector) : null;
    if (t?.ignore) {
      ignored.push(v.index);
      continue;
    }
    if (!t) {
      keep.push({ ...v, applied: null });
      continue;
    }
    const d = t.doc;
    // The payload is parsed only when the template reads it.
    const needs = (d.list_fields?.length ?? 0) + (d.fields?.length ?? 0) + (t.coalesce ? 1 : 0) > 0;
    const payload = needs ? JSON.parse(v.item.payloadJson) : {};
    keep.push({ ...v, applied: apply(t, { detector: v.item.detector, cameraId: v.item.cameraId, payload }) });
  }
  return { keep, ignored };
}

/** When the plane closes an interval opened at `occ` (ms): its template's time-out, if any. */
export function timeoutCloseBy(a: Applied | null, item: IntakeItem): number | null {
  return a?.timeoutMs && item.interval && item.endedAt === null ? item.occurredAt + a.timeoutMs : null;
}

interface Slot {
  id: string;
  occ: number;
  lastSeen: number;
  closeBy: number;
  existing: boolean;
  dirty: boolean;
  a: Applied;
}
type Item = { id: string; item: IntakeItem; applied: Applied | null; coalesced?: CoalescedOpen };

/**
 * Folds coalescing repeats among `fresh` (new, not yet written items) into open intervals: an
 * instant item whose template coalesces joins the open interval of its key when its time lies
 * between that interval's start and its close_by; otherwise it opens a new interval (written
 * with `coalesced` set). Returns the items that joined an interval with the id they joined; the
 * caller removes them from the rows to insert. Keys are locked to commit.
 */
export async function coalesceRepeats<R extends Item>(
  w: LogWrite,
  orgId: string,
  tokenId: string,
  fresh: R[],
): Promise<Array<{ r: R; target: string; targetOcc: number }>> {
  const cands = fresh
    .filter((r) => r.applied?.coalesce && !r.item.interval)
    .sort((a, b) => a.item.occurredAt - b.item.occurredAt);
  if (!cands.length) return [];
  const slots = new Map<string, Slot>();
  for (const o of await w.lockCoalesced(orgId, [...new Set(cands.map((r) => r.applied!.coalesce!.key))])) {
    if (slots.has(o.coalesce_key)) continue;
    const occ = new Date(o.occurred_at).getTime();
    slots.set(o.coalesce_key, {
      id: o.id,
      occ,
      lastSeen: new Date(o.last_seen_at).getTime(),
      closeBy: o.close_by === null ? Infinity : new Date(o.close_by).getTime(),
      existing: true,
      dirty: false,
      a: cands.find((r) => r.applied!.coalesce!.key === o.coalesce_key)!.applied!,
    });
  }
  const closeBy = (a: Applied, occ: number, lastSeen: number) =>
    Math.min(lastSeen + a.coalesce!.windowMs, a.timeoutMs ? occ + a.timeoutMs : Infinity);
  const joined: Array<{ r: R; target: string; targetOcc: number }> = [];
  const opened: Array<{ r: R; key: string; s: Slot }> = [];
  for (const r of cands) {
    const a = r.applied!,
      key = a.coalesce!.key,
      t = r.item.occurredAt;
    const s = slots.get(key);
    if (s && t >= s.occ && t <= s.closeBy) {
      s.lastSeen = Math.max(s.lastSeen, t);
      s.closeBy = closeBy(s.a, s.occ, s.lastSeen);
      s.dirty = true;
      joined.push({ r, target: s.id, targetOcc: s.occ });
      continue;
    }
    const fresh: Slot = { id: r.id, occ: t, lastSeen: t, closeBy: closeBy(a, t, t), existing: false, dirty: false, a };
    slots.set(key, fresh);
    opened.push({ r, key, s: fresh });
  }
  // Later repeats of this batch moved the slots on: the new intervals are written as they end up.
  for (const { r, key, s } of opened) r.coalesced = { key, lastSeen: s.lastSeen, closeBy: s.closeBy };
  await w.extendCoalesced(
    [...slots.values()]
      .filter((s) => s.existing && s.dirty)
      .map((s) => ({
        id: s.id,
        occurred_at: new Date(s.occ),
        last_seen_at: new Date(s.lastSeen),
        close_by: new Date(s.closeBy),
      })),
  );
  await w.repointExtIds(
    tokenId,
    joined
      .filter((j) => j.r.item.extId !== null)
      .map((j) => ({
        ext_id: j.r.item.extId!,
        event_id: j.target,
        occurred_at: new Date(j.targetOcc),
      })),
  );
  return joined;
}
