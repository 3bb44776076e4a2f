/**
 * Generators of what the plane's schemas allow (document 2: events, frames, cards, template
 * documents, analytics answers), leaning on the awkward: localisation objects, nulls, missing
 * optional fields, 16 KiB strings, hostile text, unknown severities.
 */
import fc from 'fast-check';

const hostile = fc.constantFrom(
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '{{constructor.constructor("x")()}}',
  '\u202eevil',
  '%E0%A4%A',
  '../../etc/passwd',
  'Кaмера №1',
  '東京駅 北口',
  'كاميرا',
  '🚗🚓',
  '\u0000\u0007',
  ' ',
  '',
);
const long = fc.integer({ min: 1, max: 16 * 1024 }).map((n) => 'W'.repeat(n));
export const arbText: fc.Arbitrary<string> = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), hostile, long);

const lang = fc.constantFrom('en', 'de', 'fr', 'fr-CH', 'ja', 'ar', 'pt-BR', 'EN', 'x-unknown');
/** A title as document 2 allows it: a string or an object of localisations (possibly empty or odd). */
export const arbTitle: fc.Arbitrary<unknown> = fc.oneof(
  arbText,
  fc.dictionary(lang, arbText, { maxKeys: 5 }),
  fc.dictionary(lang, fc.oneof(arbText, fc.integer(), fc.constant(null)), { maxKeys: 3 }),
  fc.constant(null),
  fc.constant(undefined),
);

const iso = fc.oneof(
  fc
    .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom('2026-11-25T10:00:00Z', 'not a date', ''),
);
const uuid = fc.uuid();
const severity = fc.oneof(
  fc.integer({ min: 0, max: 4 }),
  fc.integer({ min: -3, max: 99 }),
  fc.constantFrom('info', 'warning', 'catastrophic', null),
);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });

export const arbPayload: fc.Arbitrary<unknown> = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 }),
  fc.constant({ plate: 'AB12CD', zone: { name: 'gate', id: 3 }, big: 'x'.repeat(9000) }),
  fc.constant(null),
);

/** A stream frame or a feed row: required fields present, optional ones absent or null at random. */
export const arbFrame = fc.record(
  {
    id: uuid,
    seq: fc.nat(),
    occurred_at: iso,
    ended_at: maybe(iso),
    org_id: uuid,
    camera_id: maybe(uuid),
    camera_name: maybe(arbText),
    node_id: maybe(uuid),
    node_name: maybe(arbText),
    detector: arbText,
    detector_title: arbTitle,
    category: fc.constantFrom('camera', 'system', 'other'),
    severity,
    template_id: maybe(uuid),
    interval: fc.boolean(),
    confidence: maybe(fc.double()),
    subject_type: maybe(arbText),
    subject_ref: maybe(arbText),
    ext_id: maybe(arbText),
    list_values: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }),
    starred: fc.boolean(),
  },
  { requiredKeys: ['id', 'occurred_at', 'detector', 'category', 'org_id', 'camera_id', 'severity'] },
);

const attachment = fc.record({
  ref: uuid,
  content_type: fc.oneof(fc.constantFrom('image/jpeg', 'video/mp4'), arbText),
  size: fc.nat(),
});
const detail = fc.record({
  key: arbText,
  label: arbTitle,
  format: fc.constantFrom('text', 'number', 'enum', 'attachment'),
  value: fc.jsonValue({ maxDepth: 3 }),
});

/** An event card (GET /events/{id}): the event, its template's rendering, details of any value. */
export const arbCard = fc.record({
  event: fc.record(
    {
      id: uuid,
      occurred_at: iso,
      ended_at: maybe(iso),
      interval: fc.boolean(),
      detector: arbText,
      detector_title: arbTitle,
      severity,
      camera_id: maybe(uuid),
      camera_name: maybe(arbText),
      node_name: maybe(arbText),
      starred: fc.boolean(),
      subject_ref: maybe(arbText),
      attachments: fc.oneof(fc.array(attachment, { maxLength: 3 }), fc.constant(null)),
      org_id: uuid,
      payload: arbPayload,
    },
    { requiredKeys: ['id', 'occurred_at', 'detector', 'interval', 'starred', 'org_id', 'ended_at', 'camera_id'] },
  ),
  template: fc.constant(null),
  rendered: fc.oneof(fc.record({ title: arbTitle, details: fc.array(detail, { maxLength: 6 }) }), fc.constant(null)),
});

const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/);
const pointer = fc.constantFrom('/plate', '/zone', '/zone/name', '/big', '/missing', '');
const field = fc.record({ key, label: arbText, source: pointer });
/** A template document as document 4 §5 allows it (validated softly: unknown keys kept). */
export const arbTemplateDoc = fc.record(
  {
    detector_match: fc.constantFrom('demo.*', 'system.camera_offline', 'lpr'),
    title: arbTitle,
    list_fields: fc.array(field, { maxLength: 4 }),
    attachment_fields: fc.array(field, { maxLength: 2 }),
    fields: fc.array(
      fc.record({ key, label: arbText, source: pointer, type: fc.constantFrom('string', 'number', 'bool', 'enum') }),
      { maxLength: 4 },
    ),
    detail_layout: fc.option(
      fc.array(fc.record({ title: arbText, keys: fc.array(key, { maxLength: 4 }) }), { maxLength: 3 }),
      { nil: undefined },
    ),
    unknown_key: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ['detector_match'] },
);

const point = fc.record({
  bucket: maybe(iso),
  key: maybe(arbText),
  label: maybe(arbText),
  value: fc.oneof(fc.nat(), fc.double({ noNaN: false }), fc.constant(0)),
  sample_count: fc.nat(),
});
/** An analytics answer (document 2, POST /analytics/query). */
export const arbAnalytics = fc.record({
  group_by: fc.constantFrom('none', 'detector', 'camera', 'category', 'severity', 'field'),
  bucket: fc.constantFrom('none', 'hour', 'day'),
  from: iso,
  to: iso,
  points: fc.array(point, { maxLength: 20 }),
  truncated: fc.boolean(),
});
