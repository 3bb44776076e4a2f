import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock, startPlane, type TestPlane } from '../harness.js';
import { cameraWorld, tenants, unique, type Tenants } from '../inventory.helpers.js';
import { sendEvents } from '../fixtures.js';
import type { Client } from '../client.js';
import { Receiver, until } from './receiver.js';
import { leaves, mailingPlane, parseMime, smtpServer } from './senders/smtp-helpers.js';

// The snapshot of document 4 §13: a message about an event with an image attachment carries a
// signed link to it, valid 24 h, that opens without a session (webhook, MQTT and e-mail alike),
// and an e-mail carries the image inline. A link altered in any part, or past its 24 h, is refused.

const IMAGE = Buffer.from('\xff\xd8\xff\xe0 a JPEG-typed snapshot \xff\xd9', 'latin1');
const PATH =
  /^https:\/\/argus\.example(\/api\/v1\/notification-snapshots\/([0-9a-f-]{36})\?expires=(\d+)&signature=([\w-]{43}))$/;

describe('notification snapshots', () => {
  const clock = new ManualClock(Date.now());
  const receiver = new Receiver();
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  let t: TestPlane;
  let x: Tenants;
  let mod: Client;
  let cam: string;

  const upload = async (bytes: Buffer, type: string) => {
    const r = await mod.req('POST', '/api/v1/attachments', bytes, { 'content-type': type });
    expect(r.status, r.text).toBe(201);
    return r.body.ref as string;
  };
  /** One matching event with these attachments; what the webhook and the mail server got for it. */
  const notify = async (attachments: string[]) => {
    const [hooks, mails] = [receiver.got.length, smtp.received.length];
    const [id] = await sendEvents(mod, [
      { detector: 'snap.person', occurred_at: new Date(clock.now()).toISOString(), camera_id: cam, attachments },
    ]);
    await until(() => receiver.got.length > hooks && smtp.received.length > mails, 'the webhook and the mail arrived');
    return { id: id!, hook: receiver.got.at(-1)!.json, mail: parseMime(smtp.received.at(-1)!.raw) };
  };
  const follow = (path: string) =>
    t.plane.app.inject({ method: 'GET', url: path, headers: { 'user-agent': 'mail-client' } });

  beforeAll(async () => {
    await receiver.up();
    smtp = await smtpServer({ disabledCommands: ['STARTTLS', 'AUTH'] });
    t = await startPlane({
      clock,
      config: mailingPlane(smtp.port),
    });
    x = await tenants(t);
    const world = await cameraWorld(t, x);
    cam = await world.camera(x.a.admin);
    mod = await world.moduleToken(x.a.admin);
    const channels: string[] = [];
    for (const body of [
      { kind: 'webhook', url: receiver.url, secret: 'whsec-snapshots' },
      { kind: 'email', to: ['ops@argus.test'] },
    ]) {
      const ch = await x.a.admin.post('/api/v1/notification-channels', { name: unique('ch'), ...body });
      expect(ch.status, ch.text).toBe(201);
      channels.push(ch.body.id);
    }
    const rule = await x.a.admin.post('/api/v1/notification-rules', {
      name: unique('rule'),
      match: { detectors: ['snap.*'] },
      channel_ids: channels,
    });
    expect(rule.status, rule.text).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await receiver.down();
  });

  it('links the first image attachment for 24 h, opens it without a session and audits it; the mail has it inline', async () => {
    const text = await upload(Buffer.from('not an image'), 'text/plain');
    const image = await upload(IMAGE, 'image/jpeg');
    const { hook, mail } = await notify([text, image]);
    const m = PATH.exec(hook.snapshot_url ?? '');
    expect(m, String(hook.snapshot_url)).not.toBeNull();
    const [, path, ref, expires] = m!;
    expect(ref).toBe(image);
    expect(Number(expires)).toBe(Math.floor(clock.now() / 1000) + 24 * 3600);

    const got = await follow(path!);
    expect(got.statusCode, got.body).toBe(200);
    expect(got.rawPayload.equals(IMAGE)).toBe(true);
    expect(got.headers).toMatchObject({
      'content-type': 'image/jpeg',
      'content-length': String(IMAGE.length),
      'cache-control': 'private, no-store',
      'content-disposition': 'inline',
      'referrer-policy': 'no-referrer',
    });
    const audit = await sql<{ actor_name: string; user_agent: string; params: unknown }>`
      select actor_name, user_agent, params from audit where action = 'data.blob_download' and object_id = ${image}::uuid`.execute(
      t.db.database.db,
    );
    expect(audit.rows).toMatchObject([
      {
        actor_name: 'snapshot link',
        user_agent: 'mail-client',
        params: { size: IMAGE.length, preview: false, link: true },
      },
    ]);

    // The mail: the same link in both bodies and the image itself inline, shown by the HTML.
    const parts = leaves(mail);
    const inline = parts.find((p) => p.headers['content-type']?.startsWith('image/jpeg'));
    expect(inline?.headers['content-id']).toBe('<snapshot@argus>');
    expect(inline!.body.equals(IMAGE)).toBe(true);
    const plain = parts.find((p) => p.headers['content-type']?.startsWith('text/plain'))!.body.toString();
    expect(plain).toContain(`Snapshot (link valid 24 h): ${hook.snapshot_url}`);
    const html = parts.find((p) => p.headers['content-type']?.startsWith('text/html'))!.body.toString();
    expect(html).toContain('<img src="cid:snapshot@argus"');
  });

  it('sends no snapshot for an event without an image: snapshot_url null and no inline part', async () => {
    const svg = await upload(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml');
    const hostile = await upload(IMAGE, 'image/png;,text/html');
    const { hook, mail } = await notify([svg, hostile]);
    expect(hook.snapshot_url).toBeNull();
    expect(leaves(mail).filter((p) => p.headers['content-type']?.startsWith('image/'))).toEqual([]);
    expect((await notify([])).hook.snapshot_url).toBeNull();
  });

  it('refuses a link altered in any part (404 not_found) and one past its 24 h (410 snapshot_link_expired)', async () => {
    const other = await upload(IMAGE, 'image/png');
    const { hook } = await notify([await upload(IMAGE, 'image/jpeg')]);
    const [, path, ref, expires, signature] = PATH.exec(hook.snapshot_url!)!;
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    for (const altered of [
      path!.replace(`signature=${signature}`, `signature=${flip(signature!)}`),
      path!.replace(`expires=${expires}`, `expires=${Number(expires) + 3600}`),
      path!.replace(ref!, other),
      path!.replace(/&signature=.*$/, ''),
    ]) {
      const r = await follow(altered);
      expect(r.statusCode, altered).toBe(altered.includes('signature=') ? 404 : 400);
      if (r.statusCode === 404) expect(r.json()).toEqual({ error: 'not_found' });
    }
    expect((await follow(path!)).statusCode).toBe(200);
    clock.advance(24 * 3600_000);
    const late = await follow(path!);
    expect(late.statusCode).toBe(410);
    expect(late.json()).toEqual({ error: 'snapshot_link_expired' });
  });
});
