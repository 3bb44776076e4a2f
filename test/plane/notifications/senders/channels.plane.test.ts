import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import mqtt, { type IPublishPacket } from 'mqtt';
import { startPlane, type TestPlane } from '../../harness.js';
import { cameraWorld, tenants, unique, type Tenants } from '../../inventory.helpers.js';
import { sendEvents } from '../../fixtures.js';
import type { Client } from '../../client.js';
import { until } from '../receiver.js';
import { parseMime, leaves, mailingPlane, smtpServer } from './smtp-helpers.js';
import { startBroker, type TestBroker } from './mqtt-broker.js';

// E-mail and MQTT channels through the whole plane (document 4 §13): a module's critical event
// matched by a rule reaches a real SMTP server (the plane's [notifications.smtp]) and a real MQTT
// broker (aedes, started by this file); a channel's test message answers its delivery; the MQTT
// password reaches the broker and is never read back.

const PASSWORD = `mqtt-pw-${randomBytes(4).toString('hex')}`;

describe('e-mail and MQTT channels in the plane', () => {
  let t: TestPlane;
  let x: Tenants;
  let mod: Client;
  let cam: string;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  let mqttBroker: TestBroker;
  const run = randomBytes(4).toString('hex');

  beforeAll(async () => {
    mqttBroker = await startBroker();
    smtp = await smtpServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      onRcptTo: (a, _s, cb) =>
        a.address.startsWith('nobody@')
          ? cb(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }))
          : cb(),
    });
    t = await startPlane({ config: mailingPlane(smtp.port) });
    x = await tenants(t);
    const world = await cameraWorld(t, x);
    cam = await world.camera(x.a.admin);
    mod = await world.moduleToken(x.a.admin);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await mqttBroker?.close();
  });

  it('a critical event reaches the e-mail and the MQTT channel of its rule', async () => {
    const mail = await x.a.admin.post('/api/v1/notification-channels', {
      name: unique('mail'),
      kind: 'email',
      to: ['ops@argus.test'],
    });
    expect(mail.status, mail.text).toBe(201);
    const broker = await x.a.admin.post('/api/v1/notification-channels', {
      name: unique('mqtt'),
      kind: 'mqtt',
      url: mqttBroker.url,
      topic: `argus-plane-test/${run}/{org}/{detector}`,
      username: 'argus',
      password: PASSWORD,
    });
    expect(broker.status, broker.text).toBe(201);
    expect(broker.text).not.toContain(PASSWORD);
    expect(broker.body.password_configured).toBe(true);
    const rule = await x.a.admin.post('/api/v1/notification-rules', {
      name: unique('rule'),
      match: { detectors: ['smoke'], severity_min: 4 },
      channel_ids: [mail.body.id, broker.body.id],
    });
    expect(rule.status, rule.text).toBe(201);

    const got: IPublishPacket[] = [];
    const sub = await mqtt.connectAsync(mqttBroker.url, { reconnectPeriod: 0 });
    sub.on('message', (_t, _p, packet) => got.push(packet));
    await sub.subscribeAsync(`argus-plane-test/${run}/#`, { qos: 1 });
    try {
      const [id] = await sendEvents(mod, [
        { detector: 'smoke', occurred_at: new Date().toISOString(), camera_id: cam, severity: 'critical' },
      ]);
      await until(() => smtp.received.length > 0 && got.length > 0, 'the mail and the MQTT message arrived');
      const m = parseMime(smtp.received[0]!.raw);
      expect(m.headers.subject).toMatch(/^\[Argus\] CRITICAL: smoke on /);
      const text = leaves(m)
        .find((p) => p.headers['content-type']?.startsWith('text/plain'))!
        .body.toString();
      expect(text).toContain(`Open the event: https://argus.example/events/${id}`);
      expect(got[0]!.topic).toBe(`argus-plane-test/${run}/${x.a.orgId}/smoke`);
      expect(got[0]!.qos).toBe(1);
      expect(JSON.parse(got[0]!.payload.toString())).toMatchObject({ event: { id, severity: 4 } });
      await until(async () => {
        const log = await x.a.admin.get(`/api/v1/notification-deliveries?event_id=${id}`);
        return log.body.rows.length === 2 && log.body.rows.every((d: { state: string }) => d.state === 'sent');
      }, 'both deliveries are sent');
      // The MQTT delivery is sent once the broker acknowledged the PUBLISH, so the broker has it by now:
      // the flags as the plane published them (a subscriber is always handed retain false), and the
      // stored password, decrypted, offered with the channel's username.
      expect(mqttBroker.published.filter((p) => p.topic === got[0]!.topic)).toMatchObject([{ qos: 1, retain: false }]);
      expect(mqttBroker.logins).toContainEqual({ username: 'argus', password: PASSWORD });
    } finally {
      await sub.endAsync();
    }
    expect((await x.a.admin.get(`/api/v1/notification-channels/${broker.body.id}`)).text).not.toContain(PASSWORD);
  });

  it('a test message answers its delivery: sent, or not with the SMTP server’s reason', async () => {
    const channel = async (to: string) => {
      const ch = await x.a.admin.post('/api/v1/notification-channels', {
        name: unique('mail'),
        kind: 'email',
        to: [to],
      });
      expect(ch.status, ch.text).toBe(201);
      return ch.body.id as string;
    };
    const before = smtp.received.length;
    const good = await x.a.admin.post(`/api/v1/notification-channels/${await channel('lead@argus.test')}/test`, {});
    expect(good.status, good.text).toBe(200);
    expect(good.body).toMatchObject({ state: 'sent', last_error: null, rule_id: null });
    expect(smtp.received.slice(before).map((r) => r.to)).toEqual([['lead@argus.test']]);

    const bad = await x.a.admin.post(`/api/v1/notification-channels/${await channel('nobody@argus.test')}/test`, {});
    expect(bad.status, bad.text).toBe(200);
    expect(bad.body.state).not.toBe('sent');
    expect(bad.body.last_error).toMatch(
      /^the SMTP server 127\.0\.0\.1:\d+ refused the message for nobody@argus\.test: 550 Mailbox unavailable/,
    );
  });
});
