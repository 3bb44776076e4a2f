import { errors, type BadRequestCode } from '../errors.js';

/**
 * The template document (document 4 §5), checked softly: unknown top-level keys are kept and
 * reported in `unknown_fields`; the keys the plane knows are checked strictly, each failure with
 * its own code of document 2's list.
 */
export const DOC_LIMITS = {
  docBytes: 32 * 1024,
  detectorMatch: 256,
  listFields: 16,
  attachmentFields: 8,
  detailBlocks: 16,
  blockBytes: 4096,
  coalesceSources: 8,
  timeoutMax: 86_400,
  fields: 32,
} as const;

export const KNOWN_KEYS = [
  'detector_match',
  'title',
  'list_fields',
  'attachment_fields',
  'detail_layout',
  'coalesce',
  'interval_timeout_secs',
  'fields',
  'ignore_event',
] as const;

export type Title = string | Record<string, string>;
export interface FieldRef {
  key: string;
  label: string;
  source: string;
}
export interface TypedField extends FieldRef {
  type: 'string' | 'number' | 'bool' | 'enum';
  unit: string | null;
  enum_values: unknown[] | null;
}
export interface TemplateDoc {
  detector_match: string;
  title?: Title;
  list_fields?: FieldRef[];
  attachment_fields?: FieldRef[];
  detail_layout?: Array<{ title?: unknown; keys: string[] }>;
  coalesce?: { sources: string[]; window_secs: number };
  interval_timeout_secs?: number;
  fields?: TypedField[];
  ignore_event?: boolean;
  [unknown: string]: unknown;
}

export interface Checked {
  doc: TemplateDoc;
  unknown_fields: string[];
  document_bytes: number;
}

const KEY_RE = /^[a-z][a-z0-9_]{0,63}$/;
const bad = (code: BadRequestCode) => errors.badRequest(code);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/** A JSON pointer (RFC 6901) into the payload: "" (the whole payload) or "/a/b", with ~0 and ~1 escapes only. */
export function isPointer(s: unknown): s is string {
  return typeof s === 'string' && s.length <= 1024 && (s === '' || (s.startsWith('/') && !/~[^01]|~$/.test(s)));
}

/** The value a pointer names in `obj`, or undefined. */
export function resolvePointer(obj: unknown, pointer: string): unknown {
  if (pointer === '') return obj;
  let cur: unknown = obj;
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(part)) return undefined;
      cur = cur[Number(part)];
    } else if (isObj(cur)) {
      cur = Object.prototype.hasOwnProperty.call(cur, part) ? cur[part] : undefined;
    } else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** A title: a non-empty string, or an object of language → string. */
export function isTitle(v: unknown): v is Title {
  if (typeof v === 'string') return v.length >= 1 && v.length <= 1024;
  return (
    isObj(v) &&
    Object.keys(v).length > 0 &&
    Object.entries(v).every(([k, s]) => k.length >= 1 && k.length <= 35 && typeof s === 'string' && s.length <= 1024)
  );
}

/** `exact.id` or `prefix*` (a lone `*` matches every detector). */
export function checkDetectorMatch(v: unknown): string {
  if (typeof v !== 'string' || v.length === 0) throw bad('detector_match_required');
  if (v.length > DOC_LIMITS.detectorMatch) throw bad('detector_match_too_long');
  // A star anywhere but at the end is no mask of document 4 §5.
  if (v.slice(0, -1).includes('*')) throw bad('detector_match_required');
  return v;
}

function refs(
  v: unknown,
  max: number,
  codes: { many: BadRequestCode; key: BadRequestCode; source: BadRequestCode; meta: BadRequestCode },
): FieldRef[] {
  if (!Array.isArray(v)) throw bad(codes.meta);
  if (v.length > max) throw bad(codes.many);
  const seen = new Set<string>();
  return v.map((e) => {
    if (!isObj(e)) throw bad(codes.meta);
    if (typeof e.key !== 'string' || !KEY_RE.test(e.key) || seen.has(e.key)) throw bad(codes.key);
    seen.add(e.key);
    if (!isPointer(e.source)) throw bad(codes.source);
    if (e.label !== undefined && (typeof e.label !== 'string' || e.label.length > 256)) throw bad(codes.meta);
    return { ...e, key: e.key, label: (e.label as string | undefined) ?? e.key, source: e.source };
  });
}

function typedFields(v: unknown): TypedField[] {
  if (!Array.isArray(v) || v.length > DOC_LIMITS.fields) throw bad('bad_doc');
  const seen = new Set<string>();
  return v.map((e) => {
    if (!isObj(e) || typeof e.key !== 'string' || !KEY_RE.test(e.key) || seen.has(e.key)) throw bad('bad_doc');
    seen.add(e.key);
    if (!isPointer(e.source)) throw bad('search_field_bad_source');
    const type = e.type ?? 'string';
    if (type !== 'string' && type !== 'number' && type !== 'bool' && type !== 'enum') throw bad('bad_doc');
    if (e.label !== undefined && typeof e.label !== 'string') throw bad('bad_doc');
    if (e.unit !== undefined && e.unit !== null && typeof e.unit !== 'string') throw bad('bad_doc');
    const ev = e.enum_values;
    if (
      type === 'enum' &&
      (!Array.isArray(ev) ||
        !ev.length ||
        ev.length > 256 ||
        !ev.every(
          (x) =>
            typeof x === 'string' ||
            (isObj(x) && typeof x.value === 'string' && (x.label === undefined || typeof x.label === 'string')),
        ))
    )
      throw bad('bad_doc');
    return {
      ...e,
      key: e.key,
      label: (e.label as string | undefined) ?? e.key,
      source: e.source,
      type,
      unit: (e.unit as string | null | undefined) ?? null,
      enum_values: type === 'enum' ? (ev as unknown[]) : null,
    };
  });
}

/**
 * Checks a document for create, update and validate alike. `system` admits `ignore_event`
 * (system templates only); an organisation template naming it is refused as bad_doc.
 */
export function checkDoc(raw: unknown, opts: { system: boolean }): Checked {
  if (!isObj(raw)) throw bad('bad_doc');
  const document_bytes = bytes(raw);
  if (document_bytes > DOC_LIMITS.docBytes) throw bad('template_doc_too_large');
  const doc: TemplateDoc = { ...raw, detector_match: checkDetectorMatch(raw.detector_match) };
  if (raw.title !== undefined && !isTitle(raw.title)) throw bad('template_title_invalid');
  if (raw.list_fields !== undefined) {
    doc.list_fields = refs(raw.list_fields, DOC_LIMITS.listFields, {
      many: 'list_fields_too_many',
      key: 'list_field_bad_key',
      source: 'list_field_bad_source',
      meta: 'list_field_bad_metadata',
    });
  }
  if (raw.attachment_fields !== undefined) {
    doc.attachment_fields = refs(raw.attachment_fields, DOC_LIMITS.attachmentFields, {
      many: 'attachment_fields_too_many',
      key: 'attachment_field_bad_metadata',
      source: 'attachment_field_bad_source',
      meta: 'attachment_field_bad_metadata',
    });
  }
  if (raw.detail_layout !== undefined) {
    const dl = raw.detail_layout;
    if (!Array.isArray(dl)) throw bad('bad_doc');
    if (dl.length > DOC_LIMITS.detailBlocks) throw bad('detail_layout_too_many');
    for (const b of dl) {
      if (!isObj(b) || !Array.isArray(b.keys) || !b.keys.every((k) => typeof k === 'string')) throw bad('bad_doc');
      if (bytes(b) > DOC_LIMITS.blockBytes) throw bad('detail_layout_block_too_large');
    }
  }
  if (raw.coalesce !== undefined) {
    const c = raw.coalesce;
    if (!isObj(c) || !Array.isArray(c.sources)) throw bad('coalesce_source_invalid');
    if (c.sources.length > DOC_LIMITS.coalesceSources) throw bad('coalesce_sources_too_many');
    if (!c.sources.length || !c.sources.every(isPointer)) throw bad('coalesce_source_invalid');
    // window_secs belongs to the coalesce rule: a bad one is a bad coalesce source set
    if (
      !Number.isInteger(c.window_secs) ||
      (c.window_secs as number) < 1 ||
      (c.window_secs as number) > DOC_LIMITS.timeoutMax
    )
      throw bad('coalesce_source_invalid');
  }
  if (raw.interval_timeout_secs !== undefined) {
    const t = raw.interval_timeout_secs;
    if (!Number.isInteger(t) || (t as number) < 1 || (t as number) > DOC_LIMITS.timeoutMax)
      throw bad('bad_interval_timeout');
  }
  if (raw.fields !== undefined) doc.fields = typedFields(raw.fields);
  if (raw.ignore_event !== undefined) {
    if (!opts.system) throw bad('bad_doc');
    if (typeof raw.ignore_event !== 'boolean') throw bad('system_template_ignore_invalid');
  }
  const known = new Set<string>(KNOWN_KEYS);
  const unknown_fields = Object.keys(raw)
    .filter((k) => !known.has(k))
    .sort();
  return { doc, unknown_fields, document_bytes };
}

/**
 * A superadmin's override of a system template: `doc` with only `title` and `ignore_event`.
 * Returns the keys to merge into the shipped document.
 */
export function checkSystemOverride(raw: unknown): { title?: Title; ignore_event?: boolean } {
  if (raw === undefined) throw bad('system_template_override_required');
  if (!isObj(raw)) throw bad('system_template_fields_readonly');
  if (Object.keys(raw).some((k) => k !== 'title' && k !== 'ignore_event')) throw bad('system_template_fields_readonly');
  const out: { title?: Title; ignore_event?: boolean } = {};
  if (raw.title !== undefined) {
    if (!isTitle(raw.title)) throw bad('system_template_title_invalid');
    out.title = raw.title;
  }
  if (raw.ignore_event !== undefined) {
    if (typeof raw.ignore_event !== 'boolean') throw bad('system_template_ignore_invalid');
    out.ignore_event = raw.ignore_event;
  }
  return out;
}
