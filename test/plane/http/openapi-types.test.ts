import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildApp, makeLogger } from '../../../src/plane/app.js';
import { openDatabase } from '../../../src/plane/db/database.js';
import { parsePlaneConfig } from '../../../src/plane/config/config.js';
import { apiTypesText, GENERATED_FILE, planeOpenApi } from '../../../scripts/gen-api-types.mjs';

/**
 * Issue 21 §3: the console's API types are generated from the plane's OpenAPI document. Built here
 * from the plane's sources, the generated text must equal the committed file: a route, schema or
 * error list changed without `npm run build` (which rewrites web/src/api/openapi.gen.ts) fails.
 */
describe('web/src/api/openapi.gen.ts', () => {
  it("matches the plane's OpenAPI document", async () => {
    const document = await planeOpenApi({ buildApp, makeLogger, openDatabase, parsePlaneConfig });
    const fresh = await apiTypesText(document);
    const committed = await readFile(GENERATED_FILE, 'utf8');
    // Not toBe: a stale file would print 7000 lines; the first differing line says what moved.
    const a = committed.split('\n'),
      b = fresh.split('\n');
    const at = a.findIndex((line, i) => line !== b[i]);
    const where = at < 0 && a.length === b.length ? null : `line ${at + 1}: committed "${a[at]}", generated "${b[at]}"`;
    expect(where, 'stale: run `npm run build` (or node scripts/gen-api-types.mjs after tsc)').toBeNull();
    // The document is the whole API, not an empty shell: the console's core paths are in it.
    expect(fresh).toContain('"/api/v1/events"');
    expect(fresh).toContain('"/api/v1/cameras"');
  });
});
