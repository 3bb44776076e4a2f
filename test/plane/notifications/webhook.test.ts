import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { CANARY, ManualClock, startPlane, type TestPlane } from '../harness.js';
import { cameraWorld, tenants, unique, type Tenants } from '../inventory.helpers.js';
import { sendEvents } from '../fixtures.js';
import { login, type Client } from '../client.js';
import { Receiver, until, verifySignature } from './receiver.js';
import { expandAll } from '../../../src/plane/notifications/outbox.expand.js';
import { eventFrames } from '../../../src/plane/events/index.js';

// Webhooks against a real HTTP receiver (document 4 §13): the payload and its signature, 410
// disabling the channel, backoff and the 24 h bound on a ManualClock, the retry route, and a slow
// receiver that holds back only its own channel.

const SECRET = `whsec-${CANARY}`;

async function setup(t: TestPlane, x: Tenants, url: string, ruleBody: Record<string, unknown> = {}) {
  const ch = await x.a.admin.post('/api/v1/notification-channels', {
    name: unique('hook'),
    kind: 'webhook',
    url,
    secret: SECRET,
    headers: { 'X-Team': 'ops' },
  });
  expect(ch.status, ch.text).toBe(201);
  const rule = await x.a.admin.post('/api/v1/notification-rules', {
    name: unique('rule'),
    match: { detectors: [ruleBody.detector ?? 'door'] },
    channel_ids: [ch.body.id],
  });
  expect(rule.status, rule.text).toBe(201);
  return { channel: ch.body.id as string, rule: rule.body as { id: string; name: string } };
}

// The event's deliveries, its recorded plans turned into rows first (as a worker's next round would).
const deliveryOf = async (t: TestPlane, eventId: string) => {
  await expandAll(t.db.database.db, Date.now(), eventFrames);
  return (
    await sql<{
      id: string;
      state: string;
      attempts: number;
      next_attempt_at: Date;
      last_error: string | null;
    }>`select id::text, state, attempts, next_attempt_at, last_error from notification_deliveries where event_id = ${eventId}::uuid`.execute(
      t.db.database.db,
    )
  ).rows;
};

describe('webhook deliveries', () => {
  let t: TestPlane;
  let x: Tenants;
  let mod: Client;
  let cam: string;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.up();
    t = await startPlane({ config: { publicUrl: 'https://argus.example' } });
    x = await tenants(t);
    const world = await cameraWorld(t, x);
    cam = await world.camera(x.a.admin);
    mod = await world.moduleToken(x.a.admin);
  });
  afterAll(async () => {
    await t?.close();
    await receiver.down();
  });

  it('posts the payload with a signature that verifies, the timestamp and the delivery id; the delivery is sent', async () => {
    const { rule } = await setup(t, x, receiver.url);
    const [id] = await sendEvents(mod, [
      { detector: 'door', occurred_at: new Date().toISOString(), camera_id: cam, severity: 'critical' },
    ]);
    await until(() => receiver.got.some((r) => r.json.event.id === id), 'the receiver got the event');
    const r = receiver.got.find((g) => g.json.event.id === id)!;
    expect(verifySignature(SECRET, r.body, r.headers['x-argus-signature'] as string)).toBe(true);
    expect(verifySignature('another secret', r.body, r.headers['x-argus-signature'] as string)).toBe(false);
    expect(r.headers['x-argus-delivery']).toBe(r.json.dedupe_key);
    expect(Number(r.headers['x-argus-timestamp'])).toBeGreaterThan(1_700_000_000);
    expect(r.headers['x-team']).toBe('ops');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json).toMatchObject({
      rule: { id: rule.id, name: rule.name },
      snapshot_url: null,
      event: {
        id,
        org_id: x.a.orgId,
        camera_id: cam,
        detector: 'door',
        severity: 4,
        card_url: `https://argus.example/events/${id}`,
      },
    });
    expect(r.body).not.toContain(CANARY);
    await until(async () => (await deliveryOf(t, id!))[0]?.state === 'sent', 'the delivery is marked sent');
    const log = await x.a.admin.get(`/api/v1/notification-deliveries?event_id=${id}`);
    expect(log.body.rows).toEqual([
      expect.objectContaining({
        state: 'sent',
        attempts: 1,
        last_error: null,
        next_attempt_at: null,
        sent_at: expect.any(String),
      }),
    ]);
  });

  it('a 410 disables the channel; its delivery is dead and no more are written for it', async () => {
    const gone = await new Receiver().up();
    gone.status = 410;
    const { channel } = await setup(t, x, gone.url, { detector: 'gone' });
    const [id] = await sendEvents(mod, [{ detector: 'gone', occurred_at: new Date().toISOString() }]);
    await until(async () => (await deliveryOf(t, id!))[0]?.state === 'dead', 'the delivery is dead');
    expect((await deliveryOf(t, id!))[0]!.last_error).toMatch(/410.*disabled/);
    const ch = await x.a.admin.get(`/api/v1/notification-channels/${channel}`);
    expect(ch.body).toMatchObject({ enabled: false, revision: 2 });
    const [next] = await sendEvents(mod, [{ detector: 'gone', occurred_at: new Date().toISOString() }]);
    expect(await deliveryOf(t, next!)).toHaveLength(0);
    await gone.down();
  });

  it('a slow receiver (10 s a reply) holds back only its own channel', async () => {
    const slow = await new Receiver().up();
    slow.delayMs = 10_000;
    const fast = await new Receiver().up();
    const mk = async (url: string) =>
      (await x.a.admin.post('/api/v1/notification-channels', { name: unique('h'), kind: 'webhook', url, secret: 's' }))
        .body.id as string;
    const [a, b] = [await mk(slow.url), await mk(fast.url)];
    await x.a.admin.post('/api/v1/notification-rules', {
      name: unique('both'),
      match: { detectors: ['slowfast'] },
      channel_ids: [a, b],
    });
    const ids = await sendEvents(
      mod,
      Array.from({ length: 20 }, () => ({ detector: 'slowfast', occurred_at: new Date().toISOString() })),
    );
    await until(() => fast.got.length === 20, 'the fast channel got all 20');
    // Every one of the fast channel's arrived while the slow receiver had answered none.
    expect(slow.got.length).toBe(0);
    expect(slow.pending).toBeGreaterThan(0);
    expect(new Set(fast.got.map((g) => g.json.event.id))).toEqual(new Set(ids));
    await slow.down();
    await fast.down();
  });
});

describe('webhook retries on a manual clock', () => {
  it('fails with backoff (5 s doubling, jitter), is dead after 24 h, and the retry route sends it again', async () => {
    const clock = new ManualClock(Date.now());
    const receiver = await new Receiver().up();
    receiver.status = 503;
    const t = await startPlane({ clock });
    try {
      const x = await tenants(t);
      const world = await cameraWorld(t, x);
      const mod = await world.moduleToken(x.a.admin);
      await setup(t, x, receiver.url, { detector: 'retry' });
      const worker = t.plane.services.notifications.worker;
      const [id] = await sendEvents(mod, [{ detector: 'retry', occurred_at: new Date(clock.now()).toISOString() }]);
      const attempt = async (n: number) => {
        await worker.pump();
        await until(async () => (await deliveryOf(t, id!))[0]?.attempts === n && worker.busy() === 0, `attempt ${n}`);
        await until(async () => (await deliveryOf(t, id!))[0]!.state !== 'pending', `attempt ${n} recorded`);
        return (await deliveryOf(t, id!))[0]!;
      };
      let d = await attempt(1);
      const waits: number[] = [];
      for (let n = 2; n <= 12; n++) {
        expect(d.state).toBe('failed');
        expect(d.last_error).toBe('the receiver answered 503');
        const wait = new Date(d.next_attempt_at).getTime() - clock.now();
        waits.push(wait);
        // Not due yet: a pump now claims nothing.
        await worker.pump();
        expect((await deliveryOf(t, id!))[0]!.attempts).toBe(n - 1);
        clock.advance(wait);
        d = await attempt(n);
      }
      // 5 s doubling up to 10 min, each within ±20%.
      waits.forEach((w, i) => {
        const base = Math.min(600_000, 5000 * 2 ** i);
        expect(w).toBeGreaterThanOrEqual(base * 0.8);
        expect(w).toBeLessThanOrEqual(Math.min(600_000, base * 1.2));
      });
      clock.advance(25 * 3600_000);
      d = await attempt(13);
      expect(d.state).toBe('dead');
      const root = await login(t.plane.app);
      const again = await root.post(`/api/v1/notification-deliveries/${d.id}/retry`);
      expect(again.status, again.text).toBe(200);
      expect(again.body.state).toBe('pending');
      receiver.status = 200;
      await worker.pump();
      await until(async () => (await deliveryOf(t, id!))[0]!.state === 'sent', 'sent after the retry');
      expect(receiver.got).toHaveLength(1);
    } finally {
      await t.close();
      await receiver.down();
    }
  });
});
