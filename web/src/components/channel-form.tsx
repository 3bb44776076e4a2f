import { useState } from 'react';
import type { Channel } from '../api/notifications.js';
import { KIND_NAMES, listOf } from '../lib/notification-text.js';
import { Field } from './field.js';

/** What the channel form sends: its name and kind and the fields of its kind (a secret only when typed). */
export type ChannelValues = Record<string, unknown> & { name: string; kind: string };

/** `Name: value` lines as headers; a line without a colon is dropped. */
function headersOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

/**
 * A channel's form, for a new channel (its kind chosen here) or an edit of `channel` (its kind
 * kept). A webhook's secret and an MQTT password are write-only: left empty on an edit, the
 * stored one stays; the plane says only whether one is configured.
 */
export function ChannelForm(props: {
  channel?: Channel;
  busy: boolean;
  error: string | null;
  onSubmit(values: ChannelValues): void;
  onCancel?(): void;
}) {
  const c = props.channel;
  const [name, setName] = useState(c?.name ?? '');
  const [kind, setKind] = useState(c?.kind ?? 'webhook');
  const [url, setUrl] = useState(c?.url ?? '');
  const [secret, setSecret] = useState('');
  const [headers, setHeaders] = useState(
    Object.entries(c?.headers ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
  );
  const [to, setTo] = useState((c?.to ?? []).join(', '));
  const [topic, setTopic] = useState(c?.topic ?? 'argus/{org}/{camera}/{detector}');
  const [username, setUsername] = useState(c?.username ?? '');
  const [password, setPassword] = useState('');

  const values = (): ChannelValues => {
    const base = { name: name.trim(), kind };
    if (kind === 'email') return { ...base, to: listOf(to) };
    if (kind === 'mqtt')
      return {
        ...base,
        url: url.trim(),
        topic: topic.trim(),
        username: username.trim() || null,
        ...(password ? { password } : {}),
      };
    return { ...base, url: url.trim(), headers: headersOf(headers), ...(secret ? { secret } : {}) };
  };
  const kept = (configured: boolean | undefined) => (c && configured ? 'configured: empty keeps it' : undefined);

  return (
    <form
      className="channel-form"
      aria-label={c ? `Edit channel ${c.name}` : 'New channel'}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit(values());
      }}
    >
      <Field label="Name">
        {(f) => <input {...f} name="channel-name" value={name} required onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Kind">
        {(f) => (
          <select {...f} name="kind" value={kind} disabled={!!c} onChange={(e) => setKind(e.target.value)}>
            {Object.entries(KIND_NAMES).map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {kind === 'email' && (
        <Field label="Recipients" hint="Up to 32 addresses, comma-separated; sent through the plane's SMTP server.">
          {(f) => <textarea {...f} name="to" value={to} rows={2} required onChange={(e) => setTo(e.target.value)} />}
        </Field>
      )}
      {(kind === 'webhook' || kind === 'mqtt') && (
        <Field label="URL" hint={kind === 'mqtt' ? 'mqtt://host:1883 or mqtts://host:8883' : 'https://…'}>
          {(f) => <input {...f} name="url" value={url} required onChange={(e) => setUrl(e.target.value)} />}
        </Field>
      )}
      {kind === 'webhook' && (
        <>
          <Field label="Secret" hint={kept(c?.secret_configured) ?? 'Signs each body (X-Argus-Signature).'}>
            {(f) => (
              <input
                {...f}
                name="secret"
                type="password"
                autoComplete="new-password"
                value={secret}
                onChange={(e) => setSecret(e.target.value)}
              />
            )}
          </Field>
          <Field label="Headers" hint="One per line: Name: value">
            {(f) => (
              <textarea {...f} name="headers" rows={2} value={headers} onChange={(e) => setHeaders(e.target.value)} />
            )}
          </Field>
        </>
      )}
      {kind === 'mqtt' && (
        <>
          <Field label="Topic" hint="May use {org}, {camera}, {detector}; no + or #.">
            {(f) => <input {...f} name="topic" value={topic} required onChange={(e) => setTopic(e.target.value)} />}
          </Field>
          <Field label="Username">
            {(f) => <input {...f} name="username" value={username} onChange={(e) => setUsername(e.target.value)} />}
          </Field>
          <Field label="Password" hint={kept(c?.password_configured)}>
            {(f) => (
              <input
                {...f}
                name="password"
                type="password"
                autoComplete="new-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
        </>
      )}
      {props.error && (
        <p className="error" role="alert">
          {props.error}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={props.busy}>
          {c ? 'Save channel' : 'Create channel'}
        </button>
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
