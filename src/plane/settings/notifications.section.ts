import { isAbsolute } from 'node:path';
import { readFile } from 'node:fs/promises';
import type { PlaneConfig } from '../config/config.js';
import type { NotificationsConfig, PlaneToml } from '../config/config.types.js';
import { parseNotifications } from '../config/notifications.js';
import { errors } from '../errors.js';
import { at, type Edit } from './plane-toml.js';

// The settings' `notifications` section (document 4 §13): `[notifications] channel_rate` and the
// `[notifications.smtp]` server. The password is write-only: a reply says `password_configured`;
// a PATCH that omits it keeps the stored one only for the host and user it was saved with (as the
// evidence storage's S3 keys are kept only for their endpoint). `smtp: null` removes the server.
// Values are checked by the rules plane.toml is read with at start (config/notifications.ts), so
// what the API saves the next start accepts.

export interface NotificationsPatch {
  channel_rate?: unknown;
  smtp?: Record<string, unknown> | null;
}

const SMTP_KEYS = ['host', 'port', 'tls', 'user', 'password', 'from', 'tls_ca'] as const;

const invalid = (text: string): never => {
  throw errors.settingsInvalid(text);
};

/**
 * Checks the section against the saved file and returns its edits of plane.toml. `saved` null:
 * the file is not read yet (the check before the lock), so an omitted password counts as kept.
 */
export function notificationsEdits(
  n: NotificationsPatch,
  saved: Record<string, unknown> | null,
  config: PlaneConfig,
): Edit[] {
  if (typeof n !== 'object' || n === null || Array.isArray(n)) invalid('notifications must be an object');
  if ((n.channel_rate === undefined || n.channel_rate === null) && n.smtp === undefined)
    invalid('notifications needs channel_rate or smtp');
  const savedSection = (at(saved ?? {}, 'notifications') ?? {}) as NonNullable<PlaneToml['notifications']>;
  const rate = n.channel_rate ?? savedSection.channel_rate;
  const smtp = n.smtp === null ? undefined : n.smtp === undefined ? savedSection.smtp : smtpValues(n.smtp, saved);
  // The candidate read as the next start will read it: one set of rules, the same words.
  const problems: string[] = [];
  parseNotifications({ channel_rate: rate, smtp }, config.dataDir, config.allowPrivateTargets, problems);
  if (problems.length) invalid(problems.join('; '));
  const edits: Edit[] = [];
  if (n.channel_rate !== undefined && n.channel_rate !== null) edits.push([['notifications', 'channel_rate'], rate]);
  if (n.smtp === null) edits.push([['notifications', 'smtp'], undefined]);
  else if (n.smtp !== undefined)
    for (const k of SMTP_KEYS) edits.push([['notifications', 'smtp', k], (smtp as Record<string, unknown>)[k]]);
  return edits;
}

/** The keys [notifications.smtp] will hold (undefined: absent); the password kept or not. */
function smtpValues(s: Record<string, unknown>, saved: Record<string, unknown> | null): Record<string, unknown> {
  if (typeof s !== 'object' || Array.isArray(s)) invalid('notifications.smtp must be an object or null');
  const unknown = Object.keys(s).filter((k) => !(SMTP_KEYS as readonly string[]).includes(k));
  if (unknown.length) invalid(`notifications.smtp does not take ${unknown.join(', ')}`);
  if (s.tls_ca !== undefined && s.tls_ca !== null && (typeof s.tls_ca !== 'string' || !isAbsolute(s.tls_ca)))
    invalid('notifications.smtp.tls_ca must be an absolute path');
  const was = (k: string) => at(saved ?? {}, 'notifications', 'smtp', k);
  const given = (k: string) => (s[k] === null ? undefined : s[k]);
  const user = given('user');
  // Omitted, the stored password stays only with the host and user it was given for.
  const kept =
    s.password === undefined &&
    user !== undefined &&
    (saved === null || (was('host') === s.host && was('user') === user));
  const password =
    s.password !== undefined ? given('password') : kept ? (saved === null ? '(kept)' : was('password')) : undefined;
  return {
    host: given('host'),
    port: given('port'),
    tls: given('tls') ?? 'starttls',
    user,
    password,
    from: given('from'),
    tls_ca: given('tls_ca'),
  };
}

/** A tls_ca the PATCH names is read now, as the first e-mail will read it: a file that cannot be used is a 400, not a failed delivery. */
export async function checkTlsCa(n: NotificationsPatch | null | undefined): Promise<void> {
  const file = n?.smtp?.tls_ca;
  if (typeof file !== 'string') return;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    return invalid(`notifications.smtp.tls_ca cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    invalid('notifications.smtp.tls_ca must be a PEM file of certificates');
}

/** The SMTP server as a reply shows it: every key but the password, which is only `password_configured`. */
function smtpShown(smtp: NotificationsConfig['smtp']) {
  if (!smtp) return null;
  return {
    host: smtp.host,
    port: smtp.port,
    tls: smtp.tls,
    user: smtp.user,
    from: smtp.from,
    tls_ca: smtp.tlsCa,
    password_configured: smtp.password !== null,
  };
}

/** notifications: what the process runs with, what the file saves, and whether a restart is pending. */
export function notificationsSection(doc: Record<string, unknown>, c: PlaneConfig) {
  const effective = { channel_rate: c.notifications.channelRate, smtp: smtpShown(c.notifications.smtp) };
  // A section broken by hand reads as its defaults here; the start reports its problems.
  const n = parseNotifications(
    at(doc, 'notifications') as PlaneToml['notifications'],
    c.dataDir,
    c.allowPrivateTargets,
    [],
  );
  const saved = { channel_rate: n.channelRate, smtp: smtpShown(n.smtp) };
  return { effective, saved, pending_restart: JSON.stringify(saved) !== JSON.stringify(effective) };
}
