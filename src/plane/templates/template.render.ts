import { resolvePointer, type TemplateDoc } from './template.doc.js';
import { typedValue } from './template.apply.js';
import type { TemplateRecord } from './templates.store.js';

/** Document 2: each rendered value is limited to 8 KiB; a larger one becomes {truncated: true}. */
export const RENDERED_VALUE_MAX = 8 * 1024;

export interface Detail {
  key: string;
  label: string;
  format: string;
  value_labels: Record<string, string> | null;
  value: unknown;
}

interface Def {
  label: string;
  format: string;
  value_labels: Record<string, string> | null;
  value: (ev: EventValues) => unknown;
}
interface EventValues {
  fields: Record<string, unknown>;
  payload: unknown;
}

/** A value within the bound, or the marker that replaces it (with its size, so a client can say how large). */
export function bounded(v: unknown): unknown {
  const bytes = Buffer.byteLength(JSON.stringify(v) ?? 'null');
  return bytes > RENDERED_VALUE_MAX ? { truncated: true, bytes } : v;
}

function defs(doc: TemplateDoc): Map<string, Def> {
  const out = new Map<string, Def>();
  for (const f of doc.fields ?? []) {
    const labels =
      f.type === 'enum' && f.enum_values?.some((x) => typeof x === 'object')
        ? Object.fromEntries(
            f.enum_values.map((x) =>
              typeof x === 'string'
                ? [x, x]
                : [(x as { value: string }).value, (x as { label?: string }).label ?? (x as { value: string }).value],
            ),
          )
        : null;
    out.set(f.key, {
      label: f.label,
      format: f.type,
      value_labels: labels,
      // the value typed at intake; an event stored before the field existed is typed now
      value: (ev) => ev.fields[f.key] ?? typedValue(f, resolvePointer(ev.payload, f.source)) ?? null,
    });
  }
  for (const f of doc.list_fields ?? []) {
    if (!out.has(f.key))
      out.set(f.key, {
        label: f.label,
        format: 'text',
        value_labels: null,
        value: (ev) => resolvePointer(ev.payload, f.source) ?? null,
      });
  }
  for (const f of doc.attachment_fields ?? []) {
    if (!out.has(f.key))
      out.set(f.key, {
        label: f.label,
        format: 'attachment',
        value_labels: null,
        value: (ev) => resolvePointer(ev.payload, f.source) ?? null,
      });
  }
  return out;
}

/**
 * `rendered.details` of a card: the keys of detail_layout's blocks in order (without a layout,
 * every field, then list and attachment fields); a key no field defines is left out.
 */
export function renderDetails(doc: TemplateDoc, ev: EventValues): Detail[] {
  const d = defs(doc);
  const keys = doc.detail_layout ? doc.detail_layout.flatMap((b) => b.keys) : [...d.keys()];
  const seen = new Set<string>();
  const out: Detail[] = [];
  for (const key of keys) {
    const def = d.get(key);
    if (!def || seen.has(key)) continue;
    seen.add(key);
    out.push({
      key,
      label: def.label,
      format: def.format,
      value_labels: def.value_labels,
      value: bounded(def.value(ev)),
    });
  }
  return out;
}

/** The template parts a card shows. */
export function cardTemplate(t: TemplateRecord) {
  const d = t.doc;
  return {
    id: t.id,
    name: t.name,
    version: t.version,
    system: t.system,
    detector_match: t.detector_match,
    title: d.title ?? null,
    list_fields: d.list_fields ?? [],
    attachment_fields: d.attachment_fields ?? [],
    detail_layout: d.detail_layout ?? [],
    fields: d.fields ?? [],
  };
}
