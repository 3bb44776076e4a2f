import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bodyBytes,
  doc,
  enc,
  fuzzWorld,
  leaf,
  MODULE,
  moduleSecret,
  ops,
  root,
  RUNS,
  SEED,
  shaped,
  t,
} from './openapi.fuzz.helpers.js';

// The OpenAPI fuzz (openapi.fuzz.helpers.ts): RUNS seeded fast-check requests per operation, shaped after its schema.
fuzzWorld();

describe('OpenAPI fuzz: no route answers 5xx while the database is up', () => {
  it('every operation, RUNS generated requests each', async () => {
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    for (const op of ops) {
      const pathArb = fc.record(
        Object.fromEntries(op.params.filter((p) => p.in === 'path').map((p) => [p.name, fc.oneof(leaf, fc.uuid())])),
      );
      const queryArb = fc.record(
        Object.fromEntries(
          op.params
            .filter((p) => p.in === 'query')
            .map((p) => [p.name, fc.oneof(leaf, fc.array(leaf, { maxLength: 2 }))]),
        ),
        { requiredKeys: [] },
      );
      const bodyArb = op.body ? shaped(doc, op.body) : fc.constant(undefined);
      const result = await fc.check(
        fc.asyncProperty(pathArb, queryArb, bodyArb, async (params, query, body) => {
          const path = op.path.replace(
            /\{([^}]+)\}/g,
            (_m, name: string) => enc((params as Record<string, unknown>)[name]) || 'x',
          );
          const qs = Object.entries(query as Record<string, unknown>)
            .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${enc(x)}`))
            .join('&');
          const token = MODULE.has(`${op.method} ${op.path}`) ? moduleSecret : root.token;
          const headers: Record<string, string> = { authorization: `Bearer ${token}` };
          let payload: Buffer | undefined;
          if (body !== undefined) {
            payload = bodyBytes(body);
            headers['content-type'] = 'application/json';
          }
          const res = await t.plane.app.inject({
            method: op.method as any,
            url: qs ? `${path}?${qs}` : path,
            headers,
            ...(payload ? { payload } : {}),
          });
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          if (res.statusCode >= 500) throw new Error(`${res.statusCode} ${res.body.slice(0, 200)}`);
          return true;
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      if (result.failed)
        failures.push(
          `${op.method} ${op.path}: ${String((result as { errorInstance?: Error }).errorInstance?.message)} <- ${fc.stringify(result.counterexample).slice(0, 300)}`,
        );
    }
    if (process.env.FUZZ_DEBUG) console.log(ops.length, statuses);
    expect(t.plane.services.health.isUp).toBe(true);
    expect(failures).toEqual([]);
  }, 240_000);
});
