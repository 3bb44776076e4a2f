import { errors } from '../errors.js';
import { isRefusedEndpoint } from '../config/endpoint-guard.js';
import type { ChannelConfig, ChannelKind } from './channels.store.js';
import { topicTemplateProblem } from './senders/mqtt-topic.js';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const KINDS: readonly ChannelKind[] = ['webhook', 'email', 'mqtt'];
const PER_KIND: Record<ChannelKind, readonly string[]> = {
  webhook: ['url', 'secret', 'headers'],
  email: ['to'],
  mqtt: ['url', 'topic', 'username', 'password', 'qos'],
};
const ALL_FIELDS = ['url', 'secret', 'headers', 'to', 'topic', 'username', 'password', 'qos'];
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;
// Headers the plane sets itself (the signature, the body's type and length, the host).
const OWN_HEADERS = /^(x-argus-.*|content-type|content-length|host|transfer-encoding|connection)$/i;
const EMAIL = /^[^\s@<>(),;:"]{1,64}@[^\s@<>(),;:"]{1,255}$/;
const settings = () => errors.badRequest('bad_channel_settings');

export type ChannelInput = Partial<Record<'name' | 'kind' | 'enabled' | (typeof ALL_FIELDS)[number], unknown>>;

export function checkKind(v: unknown): ChannelKind {
  if (typeof v !== 'string' || !(KINDS as readonly string[]).includes(v)) throw errors.badRequest('bad_channel_kind');
  return v as ChannelKind;
}

/**
 * A target URL of a channel: its scheme, and the SSRF rule of the evidence storage (document 4
 * §13): a link-local or metadata host is refused unless `[network] allow_private_targets`. The
 * host's addresses are checked again when a webhook connects (senders/webhook.ts).
 */
export function checkTargetUrl(v: unknown, schemes: readonly string[], allowPrivate: boolean): string {
  if (typeof v !== 'string' || v.length > 2048) throw errors.badRequest('bad_url');
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw errors.badRequest('bad_url');
  }
  if (!schemes.includes(u.protocol) || !u.hostname) throw errors.badRequest('bad_url');
  if (!allowPrivate && isRefusedEndpoint(u.host)) throw errors.badRequest('target_refused');
  return v;
}

/**
 * The per-kind settings of a create (`before` absent) or a PATCH (merged onto `before`), and the
 * secret to seal: a string to set, null to clear, undefined to keep.
 */
export function checkSettings(
  kind: ChannelKind,
  b: ChannelInput,
  allowPrivate: boolean,
  before?: { config: ChannelConfig; hasSecret: boolean },
): { config: ChannelConfig; secret: string | null | undefined } {
  for (const k of ALL_FIELDS) if (b[k] !== undefined && !PER_KIND[kind].includes(k)) throw settings();
  const config: ChannelConfig = { ...(before?.config ?? {}) };
  let secret: string | null | undefined;
  if (kind === 'webhook') {
    if (!before || b.url !== undefined) config.url = checkTargetUrl(b.url, ['http:', 'https:'], allowPrivate);
    if (b.headers !== undefined || !before) config.headers = checkHeaders(b.headers ?? {});
    if (b.secret !== undefined) secret = checkSecret(b.secret);
    else if (!before?.hasSecret) throw settings();
  } else if (kind === 'email') {
    if (!before || b.to !== undefined) config.to = checkRecipients(b.to);
  } else {
    if (!before || b.url !== undefined) config.url = checkTargetUrl(b.url, ['mqtt:', 'mqtts:'], allowPrivate);
    if (!before || b.topic !== undefined) config.topic = checkTopic(b.topic);
    if (b.username !== undefined || !before) config.username = checkUsername(b.username ?? null);
    if (b.password !== undefined) secret = b.password === null ? null : checkSecret(b.password);
    if (b.qos !== undefined && b.qos !== 1) throw settings();
    config.qos = 1;
  }
  return { config, secret };
}

function checkSecret(v: unknown): string {
  if (typeof v !== 'string' || v.length < 1 || v.length > 1024) throw settings();
  return v;
}

function checkHeaders(v: unknown): Record<string, string> {
  if (!isObj(v) || Object.keys(v).length > 32) throw settings();
  for (const [k, x] of Object.entries(v)) {
    if (!HEADER_NAME.test(k) || OWN_HEADERS.test(k)) throw settings();
    if (typeof x !== 'string' || x.length > 4096 || /[\r\n\0]/.test(x)) throw settings();
  }
  return v as Record<string, string>;
}

function checkRecipients(v: unknown): string[] {
  if (!Array.isArray(v) || v.length < 1 || v.length > 32) throw settings();
  if (!v.every((x) => typeof x === 'string' && x.length <= 320 && EMAIL.test(x))) throw settings();
  return [...new Set(v as string[])];
}

/** An MQTT topic template the sender can fill (senders/mqtt-topic.ts): no wildcards, known placeholders. */
function checkTopic(v: unknown): string {
  if (topicTemplateProblem(v) !== null) throw settings();
  return v as string;
}

function checkUsername(v: unknown): string | null {
  if (v === null) return null;
  if (typeof v !== 'string' || v.length > 256) throw settings();
  return v;
}
