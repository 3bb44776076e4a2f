import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { ManualClock, startPlane, type TestPlane } from '../harness.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';

// The clock stands still: a token the intake route cached stays fresh for the whole file, so every
// request after the first is served from the cache and only the write's own check can refuse it.
let t: TestPlane;
let x: Tenants;
beforeAll(async () => {
  t = await startPlane({ clock: new ManualClock(Date.now()) });
  x = await tenants(t);
});
afterAll(async () => {
  await t?.close();
});

const event = (more: Record<string, unknown> = {}) => ({
  detector: 'probe',
  occurred_at: new Date().toISOString(),
  ...more,
});
const db = () => t.db.database.db;
const eventsOf = async (tokenId: string) =>
  Number(
    (
      await db()
        .selectFrom('events')
        .select((e) => e.fn.countAll().as('n'))
        .where('token_id', '=', tokenId)
        .executeTakeFirstOrThrow()
    ).n,
  );

/**
 * A change made by another plane process, of which no notice reaches this one: straight in the
 * table, without the service (which would also tell this process's cache).
 */
async function elsewhere(tokenId: string, set: { enabled?: boolean; secret_sha256?: Buffer; rate_limit?: number }) {
  await db().updateTable('module_tokens').set(set).where('id', '=', tokenId).execute();
}

async function cachedToken(rateLimit = 1000) {
  const tok = (await x.a.admin.post('/api/v1/module-tokens', { name: unique('cache'), rate_limit: rateLimit })).body;
  const mod = x.anon.as(tok.secret);
  // The first request records the token's use (the full write), the second takes the one-statement path.
  for (let i = 0; i < 2; i++) expect((await mod.post('/api/v1/events', { events: [event()] })).status).toBe(200);
  return { tok, mod };
}

describe('module tokens cached by the intake route', () => {
  it('a token disabled elsewhere is refused by the next request here, on every intake path, and nothing is written', async () => {
    const { tok, mod } = await cachedToken();
    const before = await eventsOf(tok.id);
    await elsewhere(tok.id, { enabled: false });
    const refused = { status: 401, body: { error: 'unauthorized' } };
    // one statement; the full write (ext_id); a batch with nothing to write
    expect(await mod.post('/api/v1/events', { events: [event()] })).toMatchObject(refused);
    expect(await mod.post('/api/v1/events', { events: [event({ ext_id: 'e1' })] })).toMatchObject(refused);
    expect(await mod.post('/api/v1/events', { events: [{ detector: '' }] })).toMatchObject(refused);
    expect(await eventsOf(tok.id)).toBe(before);
    expect(t.logs.text).toContain('module token refused');
    await elsewhere(tok.id, { enabled: true });
    expect((await mod.post('/api/v1/events', { events: [event()] })).status).toBe(200);
  });

  it('merged batches of a token refused by their statement are all refused', async () => {
    const { tok, mod } = await cachedToken();
    const before = await eventsOf(tok.id);
    await elsewhere(tok.id, { enabled: false });
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => mod.post('/api/v1/events', { events: [event()] })),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 401));
    expect(await eventsOf(tok.id)).toBe(before);
  });

  it('a secret rotated or a token deleted elsewhere stops at once here', async () => {
    const { tok, mod } = await cachedToken();
    await elsewhere(tok.id, {
      secret_sha256: createHash('sha256')
        .update(`amt_${unique('other')}`)
        .digest(),
    });
    expect((await mod.post('/api/v1/events', { events: [event()] })).status).toBe(401);

    const second = await cachedToken();
    await db().deleteFrom('module_tokens').where('id', '=', second.tok.id).execute();
    expect((await second.mod.post('/api/v1/events', { events: [event()] })).status).toBe(401);
    expect((await second.mod.post('/api/v1/events', { events: [event({ ext_id: 'gone' })] })).status).toBe(401);
  });

  it('a token over its rate and disabled elsewhere is 401, not 429', async () => {
    const { tok, mod } = await cachedToken(2);
    expect((await mod.post('/api/v1/events', { events: [event()] })).status).toBe(429);
    await elsewhere(tok.id, { enabled: false });
    expect((await mod.post('/api/v1/events', { events: [event()] })).status).toBe(401);
  });

  it('a rate limit changed through the API applies at once; one changed elsewhere from the next statement on', async () => {
    const { tok, mod } = await cachedToken(1000);
    await x.a.admin.patch(`/api/v1/module-tokens/${tok.id}`, { rate_limit: 1 });
    expect((await mod.post('/api/v1/events', { events: [event()] })).status).toBe(200);
    expect((await mod.post('/api/v1/events', { events: [event()] })).status).toBe(429);

    const other = await cachedToken(1000);
    await elsewhere(other.tok.id, { rate_limit: 1 });
    // The cached rate admits this one; its statement reads the new rate, whose fresh bucket of one
    // second admits the next; the clock stands still, so the third is over the rate.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await other.mod.post('/api/v1/events', { events: [event()] })).status);
    expect(statuses).toEqual([200, 200, 429]);
  });
});
