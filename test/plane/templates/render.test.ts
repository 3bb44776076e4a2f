import { describe, expect, it } from 'vitest';
import { bounded, RENDERED_VALUE_MAX } from '../../../src/plane/templates/template.render.js';

describe('rendered detail values (document 2: each at most 8 KiB)', () => {
  it('a value of exactly 8 KiB as JSON is kept; one byte more is replaced by {truncated: true}', () => {
    expect(RENDERED_VALUE_MAX).toBe(8192);
    const atLimit = 'x'.repeat(8190); // "…" quotes: 8192 bytes
    expect(bounded(atLimit)).toBe(atLimit);
    expect(bounded(`${atLimit}x`)).toEqual({ truncated: true, bytes: 8193 });
    // measured in UTF-8 bytes, not characters
    expect(bounded('é'.repeat(4095))).toBe('é'.repeat(4095));
    expect(bounded('é'.repeat(4096))).toEqual({ truncated: true, bytes: 8194 });
    const obj = { a: 'y'.repeat(8184) }; // {"a":"…"}: 8 + 8184 bytes
    expect(bounded(obj)).toBe(obj);
    expect(bounded(null)).toBeNull();
  });
});
