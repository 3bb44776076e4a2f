import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from '@decimalturn/toml-patch';
import { DEFAULT_PLANE_TOML } from '../../../src/plane/config/config.js';
import { applyEdits, at, type Edit } from '../../../src/plane/settings/plane-toml.js';

// plane.toml edited in place (document 1: "foreign lines and comments are preserved"): random
// sequences of the edits the settings API makes, on commented files with foreign keys; the
// result parses to the intended values, and every comment and every line the edits do not
// concern is still there, in order, byte for byte.

const FOREIGN = ['', "# an operator's note", '[vendor]', 'key = "value"   # theirs', 'list = [1, 2, 3]'];
const EDITS: fc.Arbitrary<Edit> = fc.oneof(
  fc.integer({ min: 60, max: 86400 }).map((v): Edit => [['dvr_export_max_secs'], v]),
  fc.constantFrom('debug', 'info', 'warn', 'error').map((v): Edit => [['logging', 'minimum_level'], v]),
  fc.constantFrom('off', 'external').map((v): Edit => [['network', 'tls', 'mode'], v]),
  fc.ipV4().map((ip): Edit => [['network', 'listen'], `${ip}:8080`]),
  fc.integer({ min: 1, max: 60 }).map((v): Edit => [['evidence_storage', 'low_watermark_percent'], v]),
  fc
    .option(fc.integer({ min: 1 << 26, max: 2 ** 40 }), { nil: undefined })
    .map((v): Edit => [['evidence_storage', 'max_bytes'], v]),
  fc
    .option(fc.array(fc.domain(), { minLength: 1, maxLength: 3 }), { nil: undefined })
    .map((v): Edit => [['network', 'tls', 'hosts'], v]),
);
/** The keys an edit may touch: their lines may change; every other line must stay. */
const TOUCHED = /^\s*(#\s*)?(dvr_export_max_secs|minimum_level|mode|listen|low_watermark_percent|max_bytes|hosts)\s*=/;

describe('plane.toml edited in place', () => {
  it('applies random edits, keeps every other line and every comment', () => {
    fc.assert(
      fc.property(fc.array(EDITS, { minLength: 1, maxLength: 8 }), fc.constantFrom(0, 1, 2), (edits, where) => {
        const lines = DEFAULT_PLANE_TOML.split('\n');
        const original =
          where === 0
            ? DEFAULT_PLANE_TOML + FOREIGN.join('\n') + '\n'
            : where === 1
              ? FOREIGN.slice(0, 2).join('\n') + '\n' + DEFAULT_PLANE_TOML
              : lines.slice(0, 12).join('\n') + '\n' + FOREIGN.join('\n') + '\n' + lines.slice(12).join('\n');
        let text = original;
        for (const e of edits) text = applyEdits(text, [e]);
        const doc = parse(text) as Record<string, unknown>;
        // the last edit of each key wins
        const last = new Map(edits.map((e) => [e[0].join('.'), e[1]]));
        for (const [path, value] of last) expect(at(doc, ...path.split('.'))).toEqual(value);
        if (where !== 1) expect(at(doc, 'vendor', 'key')).toBe('value');
        // the untouched lines, comments included, in order
        const kept = original.split('\n').filter((l) => !TOUCHED.test(l));
        const now = text.split('\n');
        let i = 0;
        for (const l of now) if (i < kept.length && l === kept[i]) i++;
        expect(i, `missing: ${kept[i]}`).toBe(kept.length);
      }),
      { numRuns: 300 },
    );
  });
});
