import { useState } from 'react';
import type { NotificationsSettings } from '../api/settings.js';
import { Field } from './field.js';

/**
 * `[notifications]` on the settings page (issue 24): the deliveries per second per channel and
 * the SMTP server every e-mail channel sends through. The password is write-only: left empty,
 * the saved one stays (for the same host and user only, the plane decides). Applied at the next
 * start.
 */
export function NotificationsSettingsForm(props: {
  current: NotificationsSettings;
  onSave(body: Record<string, unknown>): Promise<void>;
}) {
  const saved = props.current.saved;
  const m = saved.smtp;
  const [rate, setRate] = useState(String(saved.channel_rate));
  const [host, setHost] = useState(m?.host ?? '');
  const [tls, setTls] = useState<string>(m?.tls ?? 'starttls');
  const [port, setPort] = useState(m ? String(m.port) : '');
  const [user, setUser] = useState(m?.user ?? '');
  const [password, setPassword] = useState('');
  const [from, setFrom] = useState(m?.from ?? '');
  const [ca, setCa] = useState(m?.tls_ca ?? '');

  const smtp = () => ({
    host: host.trim(),
    tls,
    ...(port ? { port: Number(port) } : {}),
    ...(user.trim() ? { user: user.trim() } : {}),
    ...(password ? { password } : {}),
    from: from.trim(),
    ...(ca.trim() ? { tls_ca: ca.trim() } : {}),
  });
  return (
    <form
      className="smtp-form"
      aria-label="Notifications"
      onSubmit={(e) => {
        e.preventDefault();
        void props.onSave({ notifications: { channel_rate: Number(rate), ...(host.trim() ? { smtp: smtp() } : {}) } });
      }}
    >
      <Field label="Deliveries per second per channel">
        {(c) => (
          <input
            {...c}
            name="channel-rate"
            type="number"
            min={1}
            value={rate}
            onChange={(e) => setRate(e.target.value)}
          />
        )}
      </Field>
      <Field label="SMTP server" hint="The host every e-mail channel sends through (Remove takes it away).">
        {(c) => <input {...c} name="smtp-host" value={host} onChange={(e) => setHost(e.target.value)} />}
      </Field>
      <Field label="TLS">
        {(c) => (
          <select {...c} name="smtp-tls" value={tls} onChange={(e) => setTls(e.target.value)}>
            <option value="starttls">STARTTLS (587)</option>
            <option value="tls">TLS (465)</option>
            <option value="off">off (25)</option>
          </select>
        )}
      </Field>
      <Field label="Port" hint="Empty: the TLS mode's port.">
        {(c) => <input {...c} name="smtp-port" type="number" value={port} onChange={(e) => setPort(e.target.value)} />}
      </Field>
      <Field label="SMTP user">
        {(c) => <input {...c} name="smtp-user" value={user} onChange={(e) => setUser(e.target.value)} />}
      </Field>
      <Field label="SMTP password" hint={m?.password_configured ? 'configured: empty keeps it' : undefined}>
        {(c) => (
          <input
            {...c}
            name="smtp-password"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        )}
      </Field>
      <Field label="From" hint="Argus <alerts@example.org>">
        {(c) => <input {...c} name="smtp-from" value={from} onChange={(e) => setFrom(e.target.value)} />}
      </Field>
      <Field
        label="Trusted certificates (tls_ca)"
        hint="An absolute path to a PEM file, for a private CA; empty: the system's."
      >
        {(c) => <input {...c} name="smtp-tls-ca" value={ca} onChange={(e) => setCa(e.target.value)} />}
      </Field>
      <div className="actions">
        <button type="submit">Save notifications</button>
        {m && (
          <button type="button" onClick={() => void props.onSave({ notifications: { smtp: null } })}>
            Remove the SMTP server
          </button>
        )}
      </div>
    </form>
  );
}
