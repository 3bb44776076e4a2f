import { resolve } from 'node:path';
import type { NotificationsConfig, PlaneToml, SmtpSettings } from './config.types.js';
import { isRefusedEndpoint } from './endpoint-guard.js';

export const SMTP_TLS_MODES = ['starttls', 'tls', 'off'] as const;
/** The port of each TLS mode when `port` is absent: submission, submissions, smtp. */
export const SMTP_DEFAULT_PORT: Record<SmtpSettings['tls'], number> = { starttls: 587, tls: 465, off: 25 };
export const CHANNEL_RATE_DEFAULT = 10;
export const CHANNEL_RATE_MAX = 10_000;

/** A host name or an IP address, without scheme or port (`smtp.example.org`, `10.0.0.5`, `::1`). */
export const isSmtpHost = (h: string) => /^[A-Za-z0-9.-]{1,253}$|^\[?[0-9a-fA-F:.]+\]?$/.test(h) && !h.includes('..');
/** `alerts@example.org` or `Argus <alerts@example.org>`: one mailbox, no line break. */
export const isFromAddress = (f: string) =>
  // eslint-disable-next-line no-control-regex
  !/[\u0000-\u001f]/.test(f) && /^(?:[^<>@]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(f.trim());

/**
 * [notifications] (channel_rate, deliver) and [notifications.smtp] (document 4 §13). Problems name the
 * key, never its value: a password written in the wrong place is not echoed into the start's
 * error output. `privateOk`: [network] allow_private_targets (the SMTP host obeys the same
 * link-local and metadata rule as the S3 endpoint).
 */
export function parseNotifications(
  section: PlaneToml['notifications'],
  dataDir: string,
  privateOk: boolean,
  problems: string[],
): NotificationsConfig {
  const n = (typeof section === 'object' && section !== null ? section : {}) as NonNullable<PlaneToml['notifications']>;
  const rate = n.channel_rate ?? CHANNEL_RATE_DEFAULT;
  if (!Number.isInteger(rate) || (rate as number) < 1 || (rate as number) > CHANNEL_RATE_MAX)
    problems.push(`[notifications] channel_rate must be an integer in 1..${CHANNEL_RATE_MAX}`);
  const deliver = n.deliver ?? true;
  if (typeof deliver !== 'boolean') problems.push('[notifications] deliver must be true or false');
  const smtp = n.smtp === undefined ? null : parseSmtp(n.smtp, dataDir, privateOk, problems);
  return {
    channelRate: Number.isInteger(rate) ? (rate as number) : CHANNEL_RATE_DEFAULT,
    deliver: deliver !== false,
    smtp,
  };
}

function parseSmtp(s: unknown, dataDir: string, privateOk: boolean, problems: string[]): SmtpSettings | null {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) {
    problems.push('[notifications.smtp] must be a table');
    return null;
  }
  const e = s as Record<string, unknown>;
  const before = problems.length;
  const str = (k: string, required: boolean): string | null => {
    if (e[k] === undefined) {
      if (required) problems.push(`[notifications.smtp] ${k} is required`);
      return null;
    }
    if (typeof e[k] === 'string' && e[k] !== '') return e[k];
    problems.push(`[notifications.smtp] ${k} must be a non-empty string`);
    return null;
  };
  const host = str('host', true);
  if (host !== null && !isSmtpHost(host)) problems.push('[notifications.smtp] host must be a host name or an address');
  else if (
    host !== null &&
    !privateOk &&
    isRefusedEndpoint(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host)
  )
    problems.push(
      '[notifications.smtp] host is a link-local or metadata address ([network] allow_private_targets = true allows it)',
    );
  const tls = e.tls ?? 'starttls';
  if (!(SMTP_TLS_MODES as readonly unknown[]).includes(tls))
    problems.push(`[notifications.smtp] tls must be one of ${SMTP_TLS_MODES.join(', ')}`);
  const mode = (SMTP_TLS_MODES as readonly unknown[]).includes(tls) ? (tls as SmtpSettings['tls']) : 'starttls';
  const port = e.port ?? SMTP_DEFAULT_PORT[mode];
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535)
    problems.push('[notifications.smtp] port must be an integer in 1..65535');
  const user = str('user', false),
    password = str('password', false);
  if (password !== null && user === null) problems.push('[notifications.smtp] password needs a user');
  if (user !== null && password === null && e.password === undefined)
    problems.push('[notifications.smtp] user needs a password');
  if (user !== null && user.includes('\n')) problems.push('[notifications.smtp] user must be one line');
  const from = str('from', true);
  if (from !== null && !isFromAddress(from))
    problems.push('[notifications.smtp] from must be an address (alerts@example.org or Argus <alerts@example.org>)');
  const ca = str('tls_ca', false);
  if (ca !== null && mode === 'off') problems.push('[notifications.smtp] tls_ca needs tls starttls or tls');
  if (problems.length > before) return null;
  return {
    host: host!.replace(/^\[(.*)\]$/, '$1'),
    port: port as number,
    tls: mode,
    user,
    password,
    from: from!.trim(),
    tlsCa: ca === null ? null : resolve(dataDir, ca),
  };
}
