import { describe, expect, it } from 'vitest';
import { parse, problems } from './parse.helpers.js';
import { DEFAULT_PLANE_TOML } from '../../../src/plane/config/config.js';

// [notifications] and [notifications.smtp] in plane.toml (document 4 §13): defaults, the port of
// each TLS mode, tls_ca beside the file, and every problem reported together without echoing a
// value (the password is a canary).

const CANARY = 'Smtp-Canary-41d9';

describe('[notifications] in plane.toml', () => {
  it('defaults: 10 deliveries per second per channel, no SMTP server; the sample says the same', () => {
    expect(parse('').notifications).toEqual({ channelRate: 10, deliver: true, smtp: null });
    expect(parse(DEFAULT_PLANE_TOML).notifications).toEqual({ channelRate: 10, deliver: true, smtp: null });
  });

  it('an SMTP server: the port follows the TLS mode, tls_ca is read beside plane.toml', () => {
    const base =
      '[notifications]\nchannel_rate = 25\ndeliver = false\n[notifications.smtp]\nhost = "smtp.example.org"\nfrom = "Argus <alerts@example.org>"\n';
    expect(parse(base).notifications).toEqual({
      channelRate: 25,
      deliver: false,
      smtp: {
        host: 'smtp.example.org',
        port: 587,
        tls: 'starttls',
        user: null,
        password: null,
        from: 'Argus <alerts@example.org>',
        tlsCa: null,
      },
    });
    expect(parse(`${base}tls = "tls"\n`).notifications.smtp).toMatchObject({ tls: 'tls', port: 465 });
    expect(parse(`${base}tls = "off"\n`).notifications.smtp).toMatchObject({ tls: 'off', port: 25 });
    expect(
      parse(`${base}port = 2525\nuser = "argus"\npassword = "${CANARY}"\ntls_ca = "smtp-ca.pem"\n`).notifications.smtp,
    ).toMatchObject({ port: 2525, user: 'argus', password: CANARY, tlsCa: '/srv/argus/smtp-ca.pem' });
    expect(parse('[notifications.smtp]\nhost = "::1"\nfrom = "a@b.c"\n').notifications.smtp?.host).toBe('::1');
  });

  it('every problem at once, each naming its key, never a value', () => {
    const got = problems(
      [
        '[notifications]',
        'channel_rate = 0',
        'deliver = "no"',
        '[notifications.smtp]',
        'host = "smtp://x"',
        'port = 70000',
        'tls = "ssl"',
        `password = "${CANARY}"`,
        'from = "not an address"',
        'tls_ca = ""',
      ].join('\n'),
    );
    expect(got).toEqual([
      '[notifications] channel_rate must be an integer in 1..10000',
      '[notifications] deliver must be true or false',
      '[notifications.smtp] host must be a host name or an address',
      '[notifications.smtp] tls must be one of starttls, tls, off',
      '[notifications.smtp] port must be an integer in 1..65535',
      '[notifications.smtp] password needs a user',
      '[notifications.smtp] from must be an address (alerts@example.org or Argus <alerts@example.org>)',
      '[notifications.smtp] tls_ca must be a non-empty string',
    ]);
    expect(got.join('\n')).not.toContain(CANARY);
  });

  it('host and from are required; a user needs a password; tls_ca needs TLS; a metadata host is refused', () => {
    expect(problems('[notifications.smtp]\nuser = "argus"\n')).toEqual([
      '[notifications.smtp] host is required',
      '[notifications.smtp] user needs a password',
      '[notifications.smtp] from is required',
    ]);
    expect(problems('[notifications.smtp]\nhost = "h"\nfrom = "a@b.c"\ntls = "off"\ntls_ca = "/x.pem"\n')).toEqual([
      '[notifications.smtp] tls_ca needs tls starttls or tls',
    ]);
    expect(problems('[notifications.smtp]\nhost = "169.254.169.254"\nfrom = "a@b.c"\n')).toEqual([
      '[notifications.smtp] host is a link-local or metadata address ([network] allow_private_targets = true allows it)',
    ]);
    expect(
      problems(
        '[network]\nallow_private_targets = true\n[notifications.smtp]\nhost = "169.254.169.254"\nfrom = "a@b.c"\n',
      ),
    ).toEqual([]);
    expect(problems('[notifications.smtp]\nhost = "h"\nfrom = "a@b.c\\nBcc: x@y.z"\n')).toEqual([
      '[notifications.smtp] from must be an address (alerts@example.org or Argus <alerts@example.org>)',
    ]);
  });

  it('a password past its length is reported by its key alone', () => {
    const long = `${CANARY}${'x'.repeat(300)}`;
    const got = problems(`[notifications.smtp]\nhost = "h"\nfrom = "a@b.c"\nuser = "u"\npassword = "${long}"\n`);
    expect(got).toEqual(['[notifications.smtp] password must be at most 256 characters']);
    expect(got.join('\n')).not.toContain(CANARY);
  });
});
