import { createHash } from 'node:crypto';
import { resolvePointer, type TemplateDoc, type Title, type TypedField } from './template.doc.js';
import type { TemplateRecord } from './templates.store.js';

/** A template as intake applies it, compiled once per cache load. */
export interface Compiled {
  id: string;
  system: boolean;
  doc: TemplateDoc;
  title: Title | null;
  ignore: boolean;
  coalesce: { sources: string[]; windowMs: number } | null;
  timeoutMs: number | null;
}

/** What a template gives one event at intake. */
export interface Applied {
  template_id: string;
  title: Title | null;
  list_values: Array<{ key: string; value: unknown }>;
  fields: Record<string, string | number | boolean>;
  /** verbatim `key:value` lexemes for field:value search */
  tokens: string[];
  /** words added to the free text (title, string field values) */
  words: string[];
  coalesce: { key: string; windowMs: number } | null;
  timeoutMs: number | null;
}

/**
 * The templates that apply to one organisation's events. Choice for a detector: an exact
 * detector_match before any mask, the organisation's own before a system template, then the
 * longest prefix; ties go to the lower id (stable across processes).
 */
export class OrgTemplates {
  private readonly exact = new Map<string, Compiled>();
  private readonly prefixes: Array<{ prefix: string; t: Compiled }> = [];

  constructor(records: TemplateRecord[]) {
    const rank = (r: TemplateRecord) => (r.system ? 1 : 0);
    const sorted = [...records].sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : 1));
    for (const r of sorted) {
      const c = compile(r);
      if (r.detector_match.endsWith('*')) this.prefixes.push({ prefix: r.detector_match.slice(0, -1), t: c });
      else if (!this.exact.has(r.detector_match)) this.exact.set(r.detector_match, c);
    }
    // stable sort: longer prefixes first, organisation before system kept within a length
    this.prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  get size(): number {
    return this.exact.size + this.prefixes.length;
  }

  match(detector: string): Compiled | null {
    const e = this.exact.get(detector);
    if (e) return e;
    for (const p of this.prefixes) if (detector.startsWith(p.prefix)) return p.t;
    return null;
  }
}

function compile(r: TemplateRecord): Compiled {
  const d = r.doc;
  return {
    id: r.id,
    system: r.system,
    doc: d,
    title: d.title ?? null,
    ignore: r.system && d.ignore_event === true,
    coalesce: d.coalesce ? { sources: d.coalesce.sources, windowMs: d.coalesce.window_secs * 1000 } : null,
    timeoutMs: d.interval_timeout_secs ? d.interval_timeout_secs * 1000 : null,
  };
}

/** A typed value of a search/analytics field, or undefined when the payload does not give one of its type. */
export function typedValue(f: TypedField, v: unknown): string | number | boolean | undefined {
  switch (f.type) {
    case 'number':
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
      return undefined;
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 'false') return v === 'true';
      return undefined;
    case 'enum': {
      const s = typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
      const ok =
        s !== undefined &&
        (f.enum_values ?? []).some((x) => (typeof x === 'string' ? x : (x as { value: string }).value) === s);
      return ok ? s : undefined;
    }
    default:
      return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
  }
}

/** The lexeme of `key:value`: lower case, bounded well inside PostgreSQL's 2 KiB lexeme limit. */
export function fieldToken(key: string, value: string | number | boolean): string {
  return `${key}:${String(value).toLowerCase()}`.slice(0, 512);
}

export function titleWords(t: Title | null): string[] {
  return t === null ? [] : typeof t === 'string' ? [t] : Object.values(t);
}

export function apply(t: Compiled, ev: { detector: string; cameraId: string | null; payload: unknown }): Applied {
  const d = t.doc;
  const list_values = (d.list_fields ?? []).map((f) => ({
    key: f.key,
    value: resolvePointer(ev.payload, f.source) ?? null,
  }));
  const fields: Record<string, string | number | boolean> = {};
  const tokens: string[] = [];
  const words = titleWords(t.title);
  for (const f of d.fields ?? []) {
    const v = typedValue(f, resolvePointer(ev.payload, f.source));
    if (v === undefined) continue;
    fields[f.key] = v;
    tokens.push(fieldToken(f.key, v));
    if (typeof v === 'string') words.push(v.slice(0, 256));
  }
  let coalesce: Applied['coalesce'] = null;
  if (t.coalesce) {
    const values = t.coalesce.sources.map((s) => resolvePointer(ev.payload, s) ?? null);
    const key = createHash('sha256')
      .update(JSON.stringify([t.id, ev.cameraId, ev.detector, values]))
      .digest('base64url')
      .slice(0, 24);
    coalesce = { key, windowMs: t.coalesce.windowMs };
  }
  return { template_id: t.id, title: t.title, list_values, fields, tokens, words, coalesce, timeoutMs: t.timeoutMs };
}
