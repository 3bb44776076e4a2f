import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import mqtt, { type IPublishPacket, type MqttClient } from 'mqtt';
import { MqttSender } from '../../../../src/plane/notifications/senders/mqtt.js';
import { fillTopic, topicLevel, topicTemplateProblem } from '../../../../src/plane/notifications/senders/mqtt-topic.js';
import { message } from './smtp-helpers.js';
import { startBroker, type TestBroker } from './mqtt-broker.js';

// The MQTT sender against a real broker (aedes, started by this file on a port of its own;
// document 4 §13): a subscriber in the test receives the webhook JSON with QoS 1, retain false, on
// the filled and safe topic; the connection is reused and closed when idle; an absent or silent
// broker is ok:false in words.

const signal = () => new AbortController().signal;

/** A subscriber on `filter` at QoS 1; `got` fills with what arrives. */
async function subscriber(broker: TestBroker, filter: string) {
  const got: IPublishPacket[] = [];
  const client: MqttClient = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0, clean: true });
  client.on('message', (_t, _p, packet) => got.push(packet));
  await client.subscribeAsync(filter, { qos: 1 });
  return { got, close: () => client.endAsync() };
}

/** A loopback port nobody listens on. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('MQTT sender', () => {
  const run = randomBytes(4).toString('hex');
  const closers: Array<() => Promise<unknown>> = [];
  let sender: MqttSender;
  let broker: TestBroker;
  let BROKER: string;
  beforeAll(async () => {
    broker = await startBroker();
    BROKER = broker.url;
    closers.push(() => broker.close());
    sender = new MqttSender({ connectTimeoutMs: 2000, idleMs: 60_000 });
    closers.push(() => sender.close());
  });
  afterAll(async () => {
    for (const c of closers.reverse()) await c();
  });

  it('publishes the webhook JSON with QoS 1, retain false, on the filled topic; one connection for several messages', async () => {
    const sub = await subscriber(broker, `argus-test/${run}/#`);
    closers.push(sub.close);
    const m = message();
    const ev = m.payload.event as Record<string, unknown>;
    ev.camera_name = 'Front door';
    const config = { url: BROKER, topic: `argus-test/${run}/{org}/{camera}/{detector}` };
    const before = sender.figures().connects;
    for (let i = 0; i < 3; i++) expect(await sender.send(config, m, signal())).toEqual({ ok: true, error: null });
    await vi.waitFor(() => expect(sub.got).toHaveLength(3), { timeout: 10_000 });
    const p = sub.got[0]!;
    expect(p.topic).toBe(`argus-test/${run}/org-1/Front door/motion.person`);
    expect(p.qos).toBe(1);
    expect(p.retain).toBe(false);
    expect(JSON.parse(p.payload.toString())).toEqual(m.payload);
    // The flags as the sender published them (a subscriber is always handed retain false).
    const sent = broker.published.filter((b) => b.topic === p.topic);
    expect(sent).toHaveLength(3);
    for (const b of sent)
      expect(b).toMatchObject({ qos: 1, retain: false, clientId: expect.stringMatching(/^argus-plane-/) });
    expect(sender.figures()).toEqual({ open: 1, connects: before + 1 });
  });

  it('names cannot add levels or wildcards to the topic: / + # NUL and a leading $ become _', async () => {
    const sub = await subscriber(broker, `argus-test/${run}/safe/#`);
    closers.push(sub.close);
    const m = message();
    Object.assign(m.payload.event as Record<string, unknown>, {
      camera_name: 'a/b+c#d',
      detector: '$SYS/x',
      org_id: '',
    });
    const r = await sender.send(
      { url: BROKER, topic: `argus-test/${run}/safe/{org}/{camera}/{detector}` },
      m,
      signal(),
    );
    expect(r).toEqual({ ok: true, error: null });
    await vi.waitFor(() => expect(sub.got).toHaveLength(1), { timeout: 10_000 });
    expect(sub.got[0]!.topic).toBe(`argus-test/${run}/safe/_/a_b_c_d/_SYS_x`);
  });

  it('topics: a camera-less event, every placeholder, and the template check', () => {
    const m = message();
    Object.assign(m.payload.event as Record<string, unknown>, { camera_id: null, camera_name: null });
    expect(fillTopic('x/{camera}/{camera_id}/{detector}/{org}', m)).toBe('x/none/none/motion.person/org-1');
    expect(topicLevel('\u0000\n')).toBe('__');
    expect(topicLevel('   ')).toBe('_');
    expect(topicLevel('x'.repeat(500))).toHaveLength(128);
    expect(topicTemplateProblem('argus/{org}/{camera}')).toBeNull();
    expect(topicTemplateProblem('argus/#')).toMatch(/wildcards/);
    expect(topicTemplateProblem('argus/+/x')).toMatch(/wildcards/);
    expect(topicTemplateProblem('$SYS/x')).toMatch(/\$/);
    expect(topicTemplateProblem('argus/{site}')).toBe(
      'topic may use {org}, {camera}, {camera_id}, {detector}; not {site}',
    );
    expect(topicTemplateProblem('')).toMatch(/non-empty/);
  });

  it('an idle connection is closed; the next message opens another', async () => {
    const quick = new MqttSender({ connectTimeoutMs: 2000, idleMs: 50 });
    closers.push(() => quick.close());
    const config = { url: BROKER, topic: `argus-test/${run}/idle` };
    expect(await quick.send(config, message(), signal())).toEqual({ ok: true, error: null });
    await vi.waitFor(() => expect(quick.figures().open).toBe(0), { timeout: 10_000 });
    expect(await quick.send(config, message(), signal())).toEqual({ ok: true, error: null });
    expect(quick.figures()).toEqual({ open: 1, connects: 2 });
  });

  it('other credentials are another connection', async () => {
    const s = new MqttSender({ connectTimeoutMs: 2000 });
    closers.push(() => s.close());
    const topic = `argus-test/${run}/creds`;
    const before = broker.logins.length;
    for (const username of ['a', 'b', 'a'])
      expect(await s.send({ url: BROKER, topic, username, password: 'pw' }, message(), signal())).toMatchObject({
        ok: true,
      });
    expect(s.figures()).toEqual({ open: 2, connects: 2 });
    // The broker was offered each channel's own credentials, once per connection.
    expect(broker.logins.slice(before)).toEqual([
      { username: 'a', password: 'pw' },
      { username: 'b', password: 'pw' },
    ]);
  });

  it('a broker that is not there, or that never answers: ok:false in words, without the password', async () => {
    const port = await freePort();
    const down = await sender.send(
      { url: `mqtt://127.0.0.1:${port}`, topic: 't', username: 'u', password: 'Canary-Mqtt-9x' },
      message(),
      signal(),
    );
    expect(down.ok).toBe(false);
    expect(down.error).toMatch(new RegExp(`^could not reach the MQTT broker 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));

    // A server that takes the connection and says nothing: the connect time-out answers.
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    closers.push(async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((r) => silent.close(() => r()));
    });
    const quick = new MqttSender({ connectTimeoutMs: 300 });
    closers.push(() => quick.close());
    const port2 = (silent.address() as { port: number }).port;
    const r = await quick.send(
      { url: `mqtt://127.0.0.1:${port2}`, topic: 't', username: 'u', password: 'Canary-Mqtt-9x' },
      message(),
      signal(),
    );
    expect(r).toEqual({
      ok: false,
      error: `the MQTT broker 127.0.0.1:${port2} did not answer the connection within 0.3 s`,
    });
    expect(quick.figures().open).toBe(0);
    for (const e of [down.error, r.error]) expect(e).not.toContain('Canary-Mqtt-9x');
  });

  it('a channel whose URL or topic cannot be used: ok:false in words, no connection', async () => {
    const s = new MqttSender();
    closers.push(() => s.close());
    expect(await s.send({ url: BROKER.replace('mqtt:', 'http:'), topic: 't' }, message(), signal())).toEqual({
      ok: false,
      error: 'the channel URL must be mqtt://host[:port] or mqtts://host[:port]',
    });
    expect(await s.send({ url: BROKER, topic: 'a/#' }, message(), signal())).toEqual({
      ok: false,
      error: "the channel's topic must not contain the wildcards + or #",
    });
    expect(s.figures().connects).toBe(0);
  });
});
