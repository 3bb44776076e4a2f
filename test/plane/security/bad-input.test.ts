import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { unique } from '../inventory.helpers.js';

// Finding 6 of issue 10: input PostgreSQL or the process cannot take answers 4xx, never 500,
// and a bad item of an intake batch fails only itself.
let t: TestPlane;
let root: Client;
let mod: Client;
beforeAll(async () => {
  t = await startPlane();
  root = await login(t.plane.app);
  const r = await root.post('/api/v1/module-tokens', { name: unique('mod'), rate_limit: 100_000 });
  expect(r.status, r.text).toBe(201);
  mod = new Client(t.plane.app, r.body.secret);
});
afterAll(async () => {
  await t?.close();
});

const ev = (over: Record<string, unknown> = {}) => ({
  detector: 'fuzz.check',
  occurred_at: new Date().toISOString(),
  ...over,
});
/** JSON text nested n deep (the test client would overflow serialising such an object). */
const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
async function postText(url: string, text: string) {
  const res = await t.plane.app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${root.token}`, 'content-type': 'application/json' },
    payload: text,
  });
  return {
    status: res.statusCode,
    body: String(res.headers['content-type'] ?? '').startsWith('application/json') ? res.json() : undefined,
    text: res.body,
  };
}

function expectClientError(r: { status: number; body: any; text: string }) {
  expect(r.status, r.text).toBeGreaterThanOrEqual(400);
  expect(r.status, r.text).toBeLessThan(500);
  expect(typeof r.body?.error, r.text).toBe('string');
}

describe('intake: a bad item fails only itself', () => {
  it('a lone surrogate in one payload', async () => {
    const r = await mod.post('/api/v1/events', {
      events: [ev({ payload: { plate: '\ud800' } }), ev({ payload: { plate: 'AB123' } })],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results[0]).toEqual({ index: 0, error: 'bad_payload' });
    expect(typeof r.body.results[1].id).toBe('string');
  });

  it('a lone surrogate in a text field or a payload key', async () => {
    const r = await mod.post('/api/v1/events', {
      events: [ev({ subject_ref: 'x\udc00' }), ev({ payload: { ['k\udbff']: 1 } }), ev()],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results[0]).toEqual({ index: 0, error: 'bad_subject' });
    expect(r.body.results[1]).toEqual({ index: 1, error: 'bad_payload' });
    expect(typeof r.body.results[2].id).toBe('string');
  });

  it('a payload nested 10,000 deep', async () => {
    const r = await mod.req('POST', '/api/v1/events', undefined, { 'content-type': 'application/json' });
    expect(r.status).toBe(400); // no body at all: still an envelope
    const text =
      '{"events":[' +
      JSON.stringify(ev()).slice(0, -1) +
      ',"payload":' +
      '{"a":'.repeat(10_000) +
      '1' +
      '}'.repeat(10_000) +
      '},' +
      JSON.stringify(ev()) +
      ']}';
    const res = await t.plane.app.inject({
      method: 'POST',
      url: '/api/v1/events',
      headers: { authorization: `Bearer ${mod.token}`, 'content-type': 'application/json' },
      payload: text,
    });
    expect(res.statusCode, res.body).toBeLessThan(500);
    if (res.statusCode === 200) expect(res.json().results[0]).toEqual({ index: 0, error: 'bad_payload' });
  });
});

describe('4xx with the envelope, never 500', () => {
  it('a lone surrogate in a name', async () => {
    expectClientError(await root.post('/api/v1/tags', { name: 'tag\ud800' }));
    expectClientError(await root.post('/api/v1/orgs', { name: '\udfff org' }));
    expectClientError(await root.post('/api/v1/module-tokens', { name: 'm\ud800' }));
  });

  it('NUL in ?q= of /api/v1/events and in object_type of /api/v1/audit', async () => {
    expectClientError(await root.get('/api/v1/events?q=ab%00cd'));
    expectClientError(await root.get('/api/v1/audit?object_type=a%00b'));
    expectClientError(await root.get('/api/v1/audit?q=ab%00cd&occurred_from=2026-01-01T00:00:00Z'));
  });

  it('a body nested 10,000 deep', async () => {
    expectClientError(await postText('/api/v1/tags', `{"name":"deep","x":${deep(10_000)}}`));
    const r = await postText('/api/v1/tags', `{"name":${deep(10_000)}}`);
    expectClientError(r);
    expect(r.body.error).toBe('json_too_deep');
  });
});
