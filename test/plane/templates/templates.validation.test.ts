import { describe, expect, it } from 'vitest';
import { unique } from '../inventory.helpers.js';
import { ok, templatesWorld, x } from './templates.helpers.js';

// Template documents: every validation code and every limit (POST /api/v1/templates/validate and create).
templatesWorld();

const field = (o: Record<string, unknown> = {}) => ({ key: 'plate', label: 'Plate', source: '/plate', ...o });

describe('template documents: every validation code (validate and create answer alike)', () => {
  const big = 'x'.repeat(33 * 1024);
  const cases: Array<[string, unknown]> = [
    ['bad_doc', 'not an object'],
    ['bad_doc', [1, 2]],
    ['template_doc_too_large', ok({ note: big })],
    ['template_title_invalid', ok({ title: 5 })],
    ['template_title_invalid', ok({ title: { en: 5 } })],
    ['template_title_invalid', ok({ title: '' })],
    ['detector_match_required', {}],
    ['detector_match_required', { detector_match: '' }],
    ['detector_match_required', { detector_match: 'a*b' }],
    ['detector_match_too_long', { detector_match: 'd'.repeat(257) }],
    ['list_fields_too_many', ok({ list_fields: Array.from({ length: 17 }, (_, i) => field({ key: `k${i}` })) })],
    ['list_field_bad_key', ok({ list_fields: [field({ key: 'Plate' })] })],
    ['list_field_bad_key', ok({ list_fields: [field({ key: 'a'.repeat(65) })] })],
    ['list_field_bad_key', ok({ list_fields: [field(), field()] })],
    ['list_field_bad_source', ok({ list_fields: [field({ source: 'plate' })] })],
    ['list_field_bad_source', ok({ list_fields: [field({ source: '/a~2' })] })],
    ['list_field_bad_metadata', ok({ list_fields: [field({ label: 7 })] })],
    ['list_field_bad_metadata', ok({ list_fields: ['plate'] })],
    [
      'attachment_fields_too_many',
      ok({ attachment_fields: Array.from({ length: 9 }, (_, i) => field({ key: `a${i}` })) }),
    ],
    ['attachment_field_bad_source', ok({ attachment_fields: [field({ source: 'x' })] })],
    ['attachment_field_bad_metadata', ok({ attachment_fields: [field({ label: [] })] })],
    [
      'detail_layout_too_many',
      ok({ detail_layout: Array.from({ length: 17 }, () => ({ title: 't', keys: ['plate'] })) }),
    ],
    ['detail_layout_block_too_large', ok({ detail_layout: [{ title: 'y'.repeat(4097), keys: [] }] })],
    [
      'coalesce_sources_too_many',
      ok({ coalesce: { sources: Array.from({ length: 9 }, (_, i) => `/s${i}`), window_secs: 10 } }),
    ],
    ['coalesce_source_invalid', ok({ coalesce: { sources: ['plate'], window_secs: 10 } })],
    ['coalesce_source_invalid', ok({ coalesce: { sources: ['/plate'], window_secs: 0 } })],
    ['bad_interval_timeout', ok({ interval_timeout_secs: 0 })],
    ['bad_interval_timeout', ok({ interval_timeout_secs: 86_401 })],
    ['bad_interval_timeout', ok({ interval_timeout_secs: 1.5 })],
    ['search_field_bad_source', ok({ fields: [field({ type: 'string', source: 'nope' })] })],
    ['bad_doc', ok({ fields: [field({ type: 'date' })] })],
    ['bad_doc', ok({ fields: [field({ type: 'enum' })] })],
    ['bad_doc', ok({ fields: Array.from({ length: 33 }, (_, i) => field({ key: `f${i}` })) })],
    // ignore_event belongs to system templates only
    ['bad_doc', ok({ ignore_event: true })],
  ];
  it.each(cases.map(([code, doc], i) => [i, code, doc] as const))('case %i: %s', async (_i, code, doc) => {
    const v = await x.a.admin.post('/api/v1/templates/validate', { doc });
    expect([v.status, v.body]).toEqual([400, { error: code }]);
    const c = await x.a.admin.post('/api/v1/templates', { name: unique('bad'), doc });
    expect([c.status, c.body]).toEqual([400, { error: code }]);
  });

  it('every limit of document 4 §5 is inclusive: a document at each maximum is valid', async () => {
    const block = (title: string) => ({ title, keys: ['plate'] });
    // a detail block of exactly 4 KiB as JSON
    const base = Buffer.byteLength(JSON.stringify(block('')));
    const fullBlock = block('y'.repeat(4096 - base));
    expect(Buffer.byteLength(JSON.stringify(fullBlock))).toBe(4096);
    const docs: Array<Record<string, unknown>> = [
      { detector_match: 'd'.repeat(256) },
      { detector_match: `${'d'.repeat(255)}*` },
      ok({ list_fields: Array.from({ length: 16 }, (_, i) => field({ key: `k${i}` })) }),
      ok({ list_fields: [field({ key: `a${'b'.repeat(63)}` })] }),
      ok({ attachment_fields: Array.from({ length: 8 }, (_, i) => field({ key: `a${i}` })) }),
      ok({ detail_layout: Array.from({ length: 16 }, () => block('t')) }),
      ok({ detail_layout: [fullBlock] }),
      ok({ coalesce: { sources: Array.from({ length: 8 }, (_, i) => `/s${i}`), window_secs: 1 } }),
      ok({ interval_timeout_secs: 1 }),
      ok({
        fields: Array.from({ length: 32 }, (_, i) =>
          field({ key: `f${i}`, type: ['string', 'number', 'bool'][i % 3] }),
        ),
      }),
    ];
    // the whole document at exactly 32 KiB as JSON
    const pad = ok({ note: '' });
    docs.push(ok({ note: 'x'.repeat(32 * 1024 - Buffer.byteLength(JSON.stringify(pad))) }));
    expect(Buffer.byteLength(JSON.stringify(docs[docs.length - 1]))).toBe(32 * 1024);
    for (const doc of docs) {
      const v = await x.a.admin.post('/api/v1/templates/validate', { doc });
      expect([v.status, v.body.valid], JSON.stringify(doc).slice(0, 100)).toEqual([200, true]);
    }
    expect(
      (await x.a.admin.post('/api/v1/templates/validate', { doc: docs[docs.length - 1] })).body.document_bytes,
    ).toBe(32 * 1024);
    // a name of 128 characters after trimming
    const name = unique('n').padEnd(128, 'n');
    const c = await x.a.admin.post('/api/v1/templates', { name: ` ${name} `, doc: ok() });
    expect([c.status, c.body.name], c.text).toEqual([201, name]);
  });

  it('validate answers {valid, detector_match, document_bytes, unknown_fields}; no quota, audit or row', async () => {
    const doc = ok({
      title: { en: 'Plate', de: 'Kennzeichen' },
      zeta: 1,
      alpha: { x: 1 },
      list_fields: [field()],
      attachment_fields: [field({ key: 'frame', source: '/frame' })],
      detail_layout: [{ title: 'Vehicle', keys: ['plate'] }],
      coalesce: { sources: ['/plate'], window_secs: 30 },
      interval_timeout_secs: 86_400,
      fields: [
        field({ type: 'string' }),
        { key: 'speed', source: '/speed', type: 'number', unit: 'km/h' },
        { key: 'kind', source: '/kind', type: 'enum', enum_values: ['car', { value: 'bus', label: 'Bus' }] },
      ],
    });
    const before = (await x.a.admin.get('/api/v1/templates')).body.rows.length;
    const r = await x.a.admin.post('/api/v1/templates/validate', { doc });
    expect([r.status, r.body]).toEqual([
      200,
      {
        valid: true,
        detector_match: 'lpr.*',
        document_bytes: Buffer.byteLength(JSON.stringify(doc)),
        unknown_fields: ['alpha', 'zeta'],
      },
    ]);
    expect((await x.a.admin.get('/api/v1/templates')).body.rows.length).toBe(before);
    expect((await x.a.admin.post('/api/v1/templates/validate', {})).body).toEqual({ error: 'bad_doc' });
    expect((await x.a.operator.post('/api/v1/templates/validate', { doc })).status).toBe(403);
  });
});
