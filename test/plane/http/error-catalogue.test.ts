import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describeErrors, errors } from '../../../src/plane/errors.js';

const SRC = join(import.meta.dirname, '../../../src/plane');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('the error catalogue', () => {
  it('describes every factory, so every code reaches the OpenAPI document', () => {
    const described = new Set(describeErrors().map((e) => e.code));
    for (const [name, make] of Object.entries(errors)) {
      if (make.length === 0) expect(described.has((make as () => { code: string })().code), name).toBe(true);
    }
    for (const code of [
      'storage_full',
      'attachment_upload_busy',
      'uri_too_long',
      'node_in_use',
      'max_tags_reached',
      'bad_text',
      'method_not_allowed',
    ]) {
      expect(described.has(code), code).toBe(true);
    }
  });

  it('is the only place an ApiError is built (the validation mapping of the error handler aside)', () => {
    const outside = sources(SRC)
      .filter((f) => !f.endsWith('/errors.ts'))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .map((line, i) => ({ where: `${relative(SRC, f)}:${i + 1}`, line })),
      )
      .filter(({ line }) => /new ApiError\(/.test(line) && !/mapped \? new ApiError\(400, mapped\)/.test(line));
    expect(outside.map((o) => o.where)).toEqual([]);
  });
});
