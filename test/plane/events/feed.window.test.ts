import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';

// The feed looks for a page in the day below its upper edge first (plan-time partition pruning)
// and asks again without that window when the day does not hold a whole page.
let t: TestPlane;
let x: Tenants;
const ids: Record<string, string> = {};
const H = 3600_000,
  D = 24 * H;
const NOW = Date.now();
const AGES: Record<string, number> = { h1: H, h2: 2 * H, d3: 3 * D, d5: 5 * D, d20: 20 * D };
const enc = encodeURIComponent;

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  const mod = new Client(
    t.plane.app,
    (await x.a.admin.post('/api/v1/module-tokens', { name: unique('m'), rate_limit: 100000 })).body.secret,
  );
  const names = Object.keys(AGES);
  const r = await mod.post('/api/v1/events', {
    events: names.map((n) => ({ detector: 'window', occurred_at: new Date(NOW - AGES[n]!).toISOString() })),
  });
  expect(r.status, r.text).toBe(200);
  r.body.results.forEach((res: any, i: number) => {
    ids[names[i]!] = res.id;
  });
});
afterAll(async () => {
  await t?.close();
});

const page = async (q: string) => {
  const r = await x.a.admin.get(`/api/v1/events?detector=window&${q}`);
  expect(r.status, r.text).toBe(200);
  return {
    names: r.body.rows.map((row: any) => Object.keys(ids).find((k) => ids[k] === row.id)),
    next: r.body.next_id ? `after_ts=${enc(r.body.next_ts)}&after_id=${r.body.next_id}` : null,
  };
};

describe('feed pages across the first day window', () => {
  it('a page the newest day fills, one it does not, and keyset pages beyond it', async () => {
    expect(await page('limit=2')).toEqual({ names: ['h1', 'h2'], next: expect.any(String) });
    expect((await page('limit=3')).names).toEqual(['h1', 'h2', 'd3']);
    expect((await page('limit=1')).names).toEqual(['h1']);
    const all: string[] = [];
    let q: string | null = 'limit=1';
    while (q) {
      const p = await page(q);
      all.push(...p.names);
      q = p.next ? `limit=1&${p.next}` : null;
    }
    expect(all).toEqual(['h1', 'h2', 'd3', 'd5', 'd20']);
    expect((await page(`limit=2&to=${enc(new Date(NOW - 2 * D).toISOString())}`)).names).toEqual(['d3', 'd5']);
    expect((await page(`limit=5&from=${enc(new Date(NOW - 4 * D).toISOString())}`)).names).toEqual(['h1', 'h2', 'd3']);
    expect(
      (
        await page(
          `limit=1&from=${enc(new Date(NOW - 4 * D).toISOString())}&to=${enc(new Date(NOW - 2 * D).toISOString())}`,
        )
      ).names,
    ).toEqual(['d3']);
  });
});
