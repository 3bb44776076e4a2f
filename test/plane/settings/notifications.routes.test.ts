import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { ROOT } from '../harness.js';
import { login, type Client } from '../client.js';
import { FOREIGN, planeWithFile } from './plane-with-file.js';

// The settings' notifications section (document 4 §13): [notifications] channel_rate and
// [notifications.smtp] read and edited through GET/PATCH /api/v1/settings/plane. The password is
// write-only: a canary that never shows in a reply, the audit, the logs or an error's words.

const CANARY = 'Smtp-Canary-Pw-5e21';
const RUNNING_CANARY = 'Running-Canary-Pw-77';
const SMTP = {
  host: 'smtp.example.org',
  tls: 'starttls',
  user: 'argus',
  password: CANARY,
  from: 'Argus <alerts@example.org>',
};

describe('settings: notifications', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  beforeAll(async () => {
    p = await planeWithFile({}, 300, {
      notifications: {
        channelRate: 10,
        smtp: {
          host: 'mail.internal',
          port: 2525,
          tls: 'off',
          user: 'ops',
          password: RUNNING_CANARY,
          from: 'ops@internal',
          tlsCa: null,
        },
      },
    });
    root = await login(p.t.plane.app, ROOT);
  });
  afterAll(async () => {
    await p?.close();
  });

  const patch = (notifications: unknown) => root.req('PATCH', '/api/v1/settings/plane', { notifications });
  const saved = async () => parse(await readFile(p.file, 'utf8')) as { notifications?: Record<string, unknown> };
  const noCanary = async () => {
    const texts = [
      (await root.get('/api/v1/settings/plane')).text,
      JSON.stringify((await root.get('/api/v1/audit?action=settings.update&limit=50')).body),
      p.t.logs.text,
    ];
    for (const t of texts) for (const c of [CANARY, RUNNING_CANARY]) expect(t).not.toContain(c);
  };

  it('GET: the running server and the saved one, the password only as password_configured', async () => {
    const r = await root.get('/api/v1/settings/plane');
    expect(r.status, r.text).toBe(200);
    expect(r.body.notifications).toEqual({
      effective: {
        channel_rate: 10,
        smtp: {
          host: 'mail.internal',
          port: 2525,
          tls: 'off',
          user: 'ops',
          from: 'ops@internal',
          tls_ca: null,
          password_configured: true,
        },
      },
      saved: { channel_rate: 10, smtp: null },
      pending_restart: true,
    });
    await noCanary();
  });

  it('PATCH: channel_rate and the SMTP server saved in place, the password write-only, audited without it', async () => {
    const r = await patch({ channel_rate: 25, smtp: SMTP });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ network: null, logging: null, evidence_storage: null });
    expect(r.body.notifications.saved).toEqual({
      channel_rate: 25,
      smtp: {
        host: 'smtp.example.org',
        port: 587,
        tls: 'starttls',
        user: 'argus',
        from: 'Argus <alerts@example.org>',
        tls_ca: null,
        password_configured: true,
      },
    });
    expect(r.body.notifications.pending_restart).toBe(true);
    expect(r.text).not.toContain(CANARY);
    const text = await readFile(p.file, 'utf8');
    expect(text.endsWith(FOREIGN) || text.includes(FOREIGN.trim())).toBe(true);
    expect((await saved()).notifications).toEqual({
      channel_rate: 25,
      smtp: { host: 'smtp.example.org', tls: 'starttls', user: 'argus', password: CANARY, from: SMTP.from },
    });
    const audit = (await root.get('/api/v1/audit?action=settings.update&limit=5')).body.rows;
    expect(audit[0].params).toEqual({ sections: ['notifications'] });
    await noCanary();
  });

  it('an omitted password is kept for the same host and user only; it never follows the server elsewhere', async () => {
    const { password: _pw, ...withoutPassword } = SMTP;
    const same = await patch({ smtp: { ...withoutPassword, port: 2587 } });
    expect(same.status, same.text).toBe(200);
    expect((await saved()).notifications?.smtp).toMatchObject({ port: 2587, password: CANARY });

    const elsewhere = await patch({ smtp: { ...withoutPassword, host: 'smtp.attacker.example' } });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toBe('[notifications.smtp] user needs a password');
    const otherUser = await patch({ smtp: { ...withoutPassword, user: 'someone' } });
    expect(otherUser.body.error).toBe('[notifications.smtp] user needs a password');
    expect((await saved()).notifications?.smtp).toMatchObject({ host: 'smtp.example.org', password: CANARY });
    await noCanary();
  });

  it('invalid values: 400 with every problem in words, none of them the password', async () => {
    const r = await patch({
      channel_rate: 0,
      smtp: { ...SMTP, host: 'smtp://bad', tls: 'ssl', from: `${CANARY}`, port: 0 },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(
      [
        '[notifications] channel_rate must be an integer in 1..10000',
        '[notifications.smtp] host must be a host name or an address',
        '[notifications.smtp] tls must be one of starttls, tls, off',
        '[notifications.smtp] port must be an integer in 1..65535',
        '[notifications.smtp] from must be an address (alerts@example.org or Argus <alerts@example.org>)',
      ].join('; '),
    );
    expect(r.text).not.toContain(CANARY);
    const unknownKey = await patch({ smtp: { ...SMTP, pasword: 'x' } });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.text).not.toContain(CANARY);
    expect((await patch({})).body.error).toBe('notifications needs channel_rate or smtp');
    await noCanary();
  });

  it('tls_ca: an absolute path to a PEM file, read when saved', async () => {
    expect((await patch({ smtp: { ...SMTP, tls_ca: 'ca.pem' } })).body.error).toBe(
      'notifications.smtp.tls_ca must be an absolute path',
    );
    expect((await patch({ smtp: { ...SMTP, tls_ca: join(p.dir, 'absent.pem') } })).body.error).toBe(
      'notifications.smtp.tls_ca cannot be read (ENOENT)',
    );
    const notPem = join(p.dir, 'not.pem');
    await writeFile(notPem, 'hello');
    expect((await patch({ smtp: { ...SMTP, tls_ca: notPem } })).body.error).toBe(
      'notifications.smtp.tls_ca must be a PEM file of certificates',
    );
    const ca = join(p.dir, 'ca.pem');
    await writeFile(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const r = await patch({ smtp: { ...SMTP, tls: 'tls', tls_ca: ca } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.notifications.saved.smtp).toMatchObject({ tls: 'tls', port: 465, tls_ca: ca });
  });

  it('smtp null removes the server and its password from the file', async () => {
    const r = await patch({ smtp: null });
    expect(r.status, r.text).toBe(200);
    expect(r.body.notifications.saved).toEqual({ channel_rate: 25, smtp: null });
    const text = await readFile(p.file, 'utf8');
    expect(text).not.toContain(CANARY);
    expect((await saved()).notifications).toEqual({ channel_rate: 25 });
    await noCanary();
  });
});
