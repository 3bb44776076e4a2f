import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { selfSigned } from '../../../../src/plane/tls/certificate.js';
import { EmailSender } from '../../../../src/plane/notifications/senders/email.js';
import type { SmtpSettings } from '../../../../src/plane/config/config.js';
import { HOSTILE, leaves, message, parseMime, smtpServer, type MimePart } from './smtp-helpers.js';

// The e-mail sender against a real SMTP server (smtp-server) in the test (document 4 §13): plain,
// STARTTLS and implicit TLS with a self-signed certificate trusted through tls_ca, a login, a
// refused recipient, and the password never in a failure's words.

const CANARY = 'Canary-Pw-7f3a9c-!';
const smtp = (over: Partial<SmtpSettings>): SmtpSettings => ({
  host: '127.0.0.1',
  port: 25,
  tls: 'off',
  user: null,
  password: null,
  from: 'Argus <alerts@argus.test>',
  tlsCa: null,
  ...over,
});
const signal = () => new AbortController().signal;
const partOf = (m: MimePart, type: string) => leaves(m).find((p) => p.headers['content-type']?.startsWith(type));

describe('e-mail sender', () => {
  let dir: string;
  let pem: { cert: string; key: string };
  let caFile: string;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-email-'));
    pem = await selfSigned(['127.0.0.1', 'localhost'], Date.now());
    caFile = join(dir, 'smtp-ca.pem');
    await writeFile(caFile, pem.cert);
  });
  afterAll(async () => {
    // The senders' pools first: a server's close waits for its clients to leave.
    for (const c of closers.reverse()) await c();
    await rm(dir, { recursive: true, force: true });
  });
  /** A sender closed with the test file. */
  const sender = (s: SmtpSettings | null) => {
    const e = new EmailSender(s, { connectTimeoutMs: 3000 });
    closers.push(() => e.close());
    return e;
  };
  const server = async (opts: Parameters<typeof smtpServer>[0]) => {
    const s = await smtpServer(opts);
    closers.push(s.close);
    return s;
  };

  it('plain: subject with severity, camera and detector; a plain and an HTML body with every value escaped', async () => {
    const s = await server({ disabledCommands: ['STARTTLS', 'AUTH'] });
    const r = await sender(smtp({ port: s.port })).send({ to: ['ops@argus.test'] }, message(), signal());
    expect(r).toEqual({ ok: true, error: null });
    expect(s.received).toHaveLength(1);
    const got = s.received[0]!;
    expect(got.to).toEqual(['ops@argus.test']);
    expect(got.from).toBe('alerts@argus.test');
    expect(got.secure).toBe(false);
    const mail = parseMime(got.raw);
    expect(mail.headers.subject).toBe(`[Argus] CRITICAL: Person <script>alert(2)</script> on ${HOSTILE}`);
    expect(mail.headers['x-argus-delivery']).toBe('d-0001:rule-1:chan-1');
    expect(mail.headers['message-id']).toBe('<d-0001_rule-1_chan-1@argus.notifications>');
    const text = partOf(mail, 'text/plain')!.body.toString('utf8');
    expect(text).toContain(`Camera: ${HOSTILE}`);
    expect(text).toContain('Severity: critical');
    expect(text).toContain('Open the event: https://argus.example.org/events/ev-1');
    const html = partOf(mail, 'text/html')!.body.toString('utf8');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Person &lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).toContain('Doors at night &quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt;');
    // No markup of the event's survives, and a javascript: link is never an anchor.
    expect(html).not.toMatch(/<img src=x|<script|<b>bold/);
    expect(html).not.toContain('javascript:');
    expect(html).toContain('<a href="https://argus.example.org/events/ev-1">');
  });

  it('the snapshot travels inline: an image part with the Content-ID the HTML shows', async () => {
    const s = await server({ disabledCommands: ['STARTTLS', 'AUTH'] });
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...Array.from({ length: 300 }, (_, i) => i % 256)]);
    const r = await sender(smtp({ port: s.port })).send(
      { to: ['ops@argus.test'] },
      message({ snapshot: { bytes, contentType: 'image/jpeg' } }),
      signal(),
    );
    expect(r.ok, r.error ?? '').toBe(true);
    const mail = parseMime(s.received[0]!.raw);
    const image = partOf(mail, 'image/jpeg')!;
    expect(image.headers['content-id']).toBe('<snapshot@argus>');
    expect(image.headers['content-disposition']).toMatch(/^inline/);
    expect(image.body.equals(bytes)).toBe(true);
    expect(partOf(mail, 'text/html')!.body.toString()).toContain('<img src="cid:snapshot@argus"');
  });

  it('STARTTLS with a self-signed certificate: trusted through tls_ca, refused in words without it', async () => {
    const s = await server({ key: pem.key, cert: pem.cert, disabledCommands: ['AUTH'] });
    const trusted = await sender(smtp({ port: s.port, tls: 'starttls', tlsCa: caFile })).send(
      { to: ['ops@argus.test'] },
      message(),
      signal(),
    );
    expect(trusted).toEqual({ ok: true, error: null });
    expect(s.received[0]!.secure).toBe(true);

    const untrusted = await sender(smtp({ port: s.port, tls: 'starttls' })).send(
      { to: ['ops@argus.test'] },
      message(),
      signal(),
    );
    expect(untrusted.ok).toBe(false);
    expect(untrusted.error).toMatch(/^TLS with the SMTP server 127\.0\.0\.1:\d+ failed: .*certificate.*tls_ca/);
    expect(s.received).toHaveLength(1);
  });

  it('starttls refuses a server that does not offer STARTTLS (never sends in clear)', async () => {
    const s = await server({ disabledCommands: ['STARTTLS', 'AUTH'] });
    const r = await sender(smtp({ port: s.port, tls: 'starttls', tlsCa: caFile })).send(
      { to: ['ops@argus.test'] },
      message(),
      signal(),
    );
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^the SMTP server 127\.0\.0\.1:\d+ refused STARTTLS: 500/);
    expect(s.received).toHaveLength(0);
  });

  it('implicit TLS (tls): the session is encrypted from the first byte', async () => {
    const s = await server({ secure: true, key: pem.key, cert: pem.cert, disabledCommands: ['AUTH'] });
    const r = await sender(smtp({ port: s.port, tls: 'tls', tlsCa: caFile })).send(
      { to: ['ops@argus.test'] },
      message(),
      signal(),
    );
    expect(r).toEqual({ ok: true, error: null });
    expect(s.received[0]!.secure).toBe(true);
  });

  it('a login with user and password; a refused login in words without the password in any form', async () => {
    const s = await server({
      key: pem.key,
      cert: pem.cert,
      onAuth(auth, _session, cb) {
        // A server that quotes what it was sent: the sender must take the secret out of its words.
        if (auth.username === 'argus' && auth.password === CANARY) cb(null, { user: 'argus' });
        else
          cb(
            new Error(
              `bad login ${auth.username}/${auth.password ?? ''} ${Buffer.from(auth.password ?? '').toString('base64')}`,
            ),
          );
      },
    });
    const good = await sender(
      smtp({ port: s.port, tls: 'starttls', tlsCa: caFile, user: 'argus', password: CANARY }),
    ).send({ to: ['ops@argus.test'] }, message(), signal());
    expect(good).toEqual({ ok: true, error: null });
    expect(s.received[0]!.user).toBe('argus');

    const wrong = `${CANARY}-old`;
    const bad = await sender(
      smtp({ port: s.port, tls: 'starttls', tlsCa: caFile, user: 'argus', password: wrong }),
    ).send({ to: ['ops@argus.test'] }, message(), signal());
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(
      /^the SMTP server 127\.0\.0\.1:\d+ refused the login of argus: .*bad login argus\/\[redacted\]/,
    );
    for (const form of [
      wrong,
      CANARY,
      Buffer.from(wrong).toString('base64'),
      Buffer.from(`\0argus\0${wrong}`).toString('base64'),
    ])
      expect(bad.error).not.toContain(form);
  });

  it('a refused recipient is ok:false in words; one refused among accepted ones still delivers to the others', async () => {
    const s = await server({
      disabledCommands: ['STARTTLS', 'AUTH'],
      onRcptTo(address, _session, cb) {
        if (address.address.startsWith('nobody@'))
          cb(Object.assign(new Error('No such mailbox here'), { responseCode: 550 }));
        else cb();
      },
    });
    const e = sender(smtp({ port: s.port }));
    const refused = await e.send({ to: ['nobody@argus.test'] }, message(), signal());
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/refused the message for nobody@argus\.test: .*550.*No such mailbox here/);
    expect(s.received).toHaveLength(0);

    const mixed = await e.send({ to: ['nobody@argus.test', 'ops@argus.test'] }, message(), signal());
    expect(mixed).toEqual({ ok: true, error: null });
    expect(s.received.map((m) => m.to)).toEqual([['ops@argus.test']]);
  });

  it('a server that is not there, a plane without [notifications.smtp], a channel without recipient: ok:false in words', async () => {
    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as { port: number }).port;
    await new Promise<void>((r) => free.close(() => r()));
    const down = await sender(smtp({ port })).send({ to: ['ops@argus.test'] }, message(), signal());
    expect(down.ok).toBe(false);
    expect(down.error).toMatch(new RegExp(`^could not reach the SMTP server 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));

    expect(await sender(null).send({ to: ['ops@argus.test'] }, message(), signal())).toEqual({
      ok: false,
      error: 'no SMTP server is configured: [notifications.smtp] in plane.toml names one',
    });
    const none = await sender(smtp({ port })).send({ to: [] }, message(), signal());
    expect(none).toEqual({ ok: false, error: 'the channel has no recipient' });
  });

  it('a cancelled send answers at once, in words', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await sender(smtp({ port: 1 })).send({ to: ['ops@argus.test'] }, message(), ac.signal);
    expect(r).toEqual({ ok: false, error: 'the send was cancelled' });
  });
});
