import { describe, expect, it } from 'vitest';
import {
  bodyBytes,
  doc,
  enc,
  EXTREME_TIMES,
  fuzzWorld,
  isTimeField,
  MODULE,
  moduleSecret,
  ops,
  plausible,
  resolve,
  root,
  SWEEP,
  t,
  type Schema,
} from './openapi.fuzz.helpers.js';

// The OpenAPI fuzz (openapi.fuzz.helpers.ts), one value at a time: every field of every operation,
// then every timestamp field; the generated requests: openapi.fuzz.generated.test.ts.
fuzzWorld();

describe('OpenAPI fuzz: no route answers 5xx while the database is up', () => {
  it('covers the documented operations', () => {
    expect(ops.length).toBeGreaterThan(40);
  });

  it('every field of every operation, one nasty value at a time', async () => {
    const failures: string[] = [];
    for (const op of ops) {
      const token = MODULE.has(`${op.method} ${op.path}`) ? moduleSecret : root.token;
      const pathParams = op.params.filter((p) => p.in === 'path').map((p) => p.name);
      const queryParams = op.params.filter((p) => p.in === 'query').map((p) => p.name);
      const base = op.body ? (plausible(doc, op.body) as Record<string, unknown>) : undefined;
      const bodyFields = op.body ? Object.keys(resolve(doc, op.body).properties ?? {}) : [];
      const send = async (
        what: string,
        path: Record<string, unknown>,
        query: Record<string, unknown>,
        body: unknown,
      ) => {
        const url = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
          enc(path[name] ?? '00000000-0000-4000-8000-000000000001'),
        );
        const qs = Object.entries(query)
          .map(([k, v]) => `${k}=${enc(v)}`)
          .join('&');
        const headers: Record<string, string> = { authorization: `Bearer ${token}` };
        const payload = body === undefined ? undefined : bodyBytes(body);
        if (payload) headers['content-type'] = 'application/json';
        const res = await t.plane.app.inject({
          method: op.method as any,
          url: qs ? `${url}?${qs}` : url,
          headers,
          ...(payload ? { payload } : {}),
        });
        if (res.statusCode >= 500)
          failures.push(`${op.method} ${op.path} ${what}: ${res.statusCode} ${res.body.slice(0, 120)}`);
      };
      for (const v of SWEEP) {
        for (const name of pathParams)
          await send(`path ${name}=${JSON.stringify(v).slice(0, 20)}`, { [name]: v }, {}, base);
        for (const name of queryParams)
          await send(`query ${name}=${JSON.stringify(v).slice(0, 20)}`, {}, { [name]: v }, base);
        for (const name of bodyFields)
          await send(`body ${name}=${JSON.stringify(v).slice(0, 20)}`, {}, {}, { ...base, [name]: v });
        if (op.body) await send(`body=${JSON.stringify(v).slice(0, 20)}`, {}, {}, v);
      }
    }
    expect(t.plane.services.health.isUp).toBe(true);
    expect(failures).toEqual([]);
  }, 240_000);

  it('every timestamp field: extreme and impossible times answer 4xx', async () => {
    const failures: string[] = [];
    let fields = 0;
    for (const op of ops) {
      const token = MODULE.has(`${op.method} ${op.path}`) ? moduleSecret : root.token;
      const base = op.body ? (plausible(doc, op.body) as Record<string, unknown>) : undefined;
      const query = op.params.filter((p) => p.in === 'query' && isTimeField(doc, p.name, p.schema)).map((p) => p.name);
      const body = op.body
        ? Object.entries(resolve(doc, op.body).properties ?? {})
            .filter(([k, v]) => isTimeField(doc, k, v as Schema))
            .map(([k]) => k)
        : [];
      fields += query.length + body.length;
      const url = op.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000001');
      for (const v of EXTREME_TIMES) {
        for (const [where, name] of [
          ...query.map((q) => ['query', q] as const),
          ...body.map((b) => ['body', b] as const),
        ]) {
          const res = await t.plane.app.inject({
            method: op.method as any,
            url: where === 'query' ? `${url}?${name}=${enc(v)}` : url,
            headers: { authorization: `Bearer ${token}`, ...(base ? { 'content-type': 'application/json' } : {}) },
            ...(base ? { payload: bodyBytes(where === 'body' ? { ...base, [name]: v } : base) } : {}),
          });
          if (res.statusCode < 400 || res.statusCode >= 500)
            failures.push(`${op.method} ${op.path} ${where} ${name}=${v}: ${res.statusCode} ${res.body.slice(0, 120)}`);
        }
      }
    }
    expect(fields).toBeGreaterThan(10);
    expect(t.plane.services.health.isUp).toBe(true);
    expect(failures).toEqual([]);
  }, 120_000);
});
