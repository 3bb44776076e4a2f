import { useEffect, useState } from 'react';
import { ApiFailure } from '../../api/failure.js';
import { errorSentence } from '../../api/error-words.js';
import type { SettingsChange } from '../../api/settings.js';
import { useChangeSettings, usePlaneSettings, useTestStorage } from '../../hooks/use-settings.js';
import { NotificationsSettingsForm } from '../../components/smtp-settings.js';

const MB = (n: number | null) => (n === null ? '—' : `${(n / 1024 / 1024).toFixed(0)} MiB`);

/** The storage form: the fields of document 1 for a folder or a bucket; keys only sent when typed. */
function StorageForm(props: {
  current: Record<string, unknown>;
  onSave(body: Record<string, unknown>, ack: boolean): Promise<void>;
  onTest(body: Record<string, unknown>): Promise<string>;
}) {
  const c = props.current;
  const [f, setF] = useState<Record<string, string>>({});
  useEffect(() => {
    setF(
      Object.fromEntries(
        [
          'backend',
          'dir',
          'endpoint',
          'bucket',
          'region',
          'addressing',
          'https',
          'max_bytes',
          'volume_retention',
          'low_watermark_percent',
          'high_watermark_percent',
          'critical_watermark_percent',
        ].map((k) => [k, c[k] === null || c[k] === undefined ? '' : String(c[k])]),
      ),
    );
  }, [c]);
  const [ack, setAck] = useState(false);
  const [testResult, setTestResult] = useState<string | null>(null);
  const body = () => {
    const num = (k: string) => (f[k] ? Number(f[k]) : undefined);
    const common = {
      volume_retention: f.volume_retention || 'disabled',
      low_watermark_percent: num('low_watermark_percent'),
      high_watermark_percent: num('high_watermark_percent'),
      critical_watermark_percent: num('critical_watermark_percent'),
      max_bytes: num('max_bytes') ?? null,
    };
    return f.backend === 's3'
      ? {
          backend: 's3',
          endpoint: f.endpoint,
          bucket: f.bucket,
          region: f.region || undefined,
          addressing: f.addressing || 'path',
          https: f.https !== 'false',
          ...(f.access_key ? { access_key: f.access_key, secret_key: f.secret_key } : {}),
          ...common,
        }
      : { backend: 'local', dir: f.dir, ...common };
  };
  const field = (k: string, label: string, type = 'text') => (
    <label>
      {label}
      <input name={k} type={type} value={f[k] ?? ''} onChange={(e) => setF({ ...f, [k]: e.target.value })} />
    </label>
  );
  return (
    <form
      className="grid-form"
      onSubmit={async (e) => {
        e.preventDefault();
        await props.onSave(body(), ack);
      }}
    >
      <label>
        Backend
        <select name="backend" value={f.backend ?? 'local'} onChange={(e) => setF({ ...f, backend: e.target.value })}>
          <option value="local">Folder</option>
          <option value="s3">S3 bucket</option>
        </select>
      </label>
      {f.backend === 's3' ? (
        <>
          {field('endpoint', 'Endpoint (host:port)')}
          {field('bucket', 'Bucket')}
          {field('region', 'Region')}
          <label>
            HTTPS
            <select
              name="https"
              value={f.https === 'false' ? 'false' : 'true'}
              onChange={(e) => setF({ ...f, https: e.target.value })}
            >
              <option value="true">yes</option>
              <option value="false">no</option>
            </select>
          </label>
          <label>
            Addressing
            <select
              name="addressing"
              value={f.addressing || 'path'}
              onChange={(e) => setF({ ...f, addressing: e.target.value })}
            >
              <option value="path">path</option>
              <option value="virtual_host">virtual host</option>
            </select>
          </label>
          {field('access_key', 'Access key (blank: keep)')}
          {field('secret_key', 'Secret key', 'password')}
        </>
      ) : (
        field('dir', 'Folder')
      )}
      {field('max_bytes', 'Max bytes', 'number')}
      {field('low_watermark_percent', 'Low %', 'number')}
      {field('high_watermark_percent', 'High %', 'number')}
      {field('critical_watermark_percent', 'Critical %', 'number')}
      <label>
        Retention
        <select
          name="volume_retention"
          value={f.volume_retention ?? 'disabled'}
          onChange={(e) => setF({ ...f, volume_retention: e.target.value })}
        >
          <option value="disabled">Keep everything</option>
          <option value="oldest_purge_day">Purge the oldest days at the high watermark</option>
        </select>
      </label>
      {f.volume_retention === 'oldest_purge_day' && c.volume_retention !== 'oldest_purge_day' && (
        <label className="warn">
          <input type="checkbox" checked={ack} onChange={(e) => setAck(e.target.checked)} />I understand that whole days
          of events and evidence will be deleted
        </label>
      )}
      <div className="actions">
        <button type="button" onClick={async () => setTestResult(await props.onTest(body()))}>
          Test storage
        </button>
        <button type="submit">Save storage</button>
        {testResult && <span data-testid="storage-test">{testResult}</span>}
      </div>
    </form>
  );
}

/** The plane's settings (superadmin, document 1): the log level, the export limit, the evidence storage; the certificate in use. */
export function SettingsPage() {
  const settings = usePlaneSettings();
  const change = useChangeSettings();
  const probe = useTestStorage();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const save = async (body: Record<string, unknown>) => {
    setMessage(null);
    try {
      // The forms build their part of the change; the plane validates it (400 with the field).
      await change.mutateAsync(body as SettingsChange);
      setMessage({ ok: true, text: 'Saved.' });
    } catch (err) {
      setMessage({ ok: false, text: errorSentence(err) });
    }
  };
  if (settings.isPending) return <p className="empty">Loading…</p>;
  if (settings.isError)
    return (
      <p className="error">
        {settings.error instanceof ApiFailure && settings.error.status === 403
          ? 'Only a superadministrator sees the plane settings.'
          : errorSentence(settings.error)}
      </p>
    );
  const s = settings.data.body;
  const cert = s.network.certificate;
  const st = s.evidence_storage.stats;
  return (
    <section className="admin">
      <h2>Plane settings</h2>
      {(s.network.pending_restart || s.evidence_storage.pending_restart || s.notifications?.pending_restart) && (
        <p className="banner" role="status">
          Saved changes wait for a restart of the plane.
        </p>
      )}
      {s.evidence_storage.rotation_blocked && (
        <p className="banner warn" role="status">
          The retired evidence storage still holds objects: move them with "argus-plane evidence migrate" before another
          change of storage.
        </p>
      )}
      {message && (
        <p className={message.ok ? 'note' : 'error'} role="alert">
          {message.text}
        </p>
      )}
      <h3>General</h3>
      <form
        className="inline"
        onSubmit={async (e) => {
          e.preventDefault();
          const d = new FormData(e.currentTarget);
          await save({
            dvr_export_max_secs: Number(d.get('dvr')),
            ...(s.logging.environment_override ? {} : { log_level: d.get('level') }),
          });
        }}
      >
        <label>
          Longest export (s)
          <input name="dvr" type="number" defaultValue={s.dvr_export_max_secs} />
        </label>
        <label>
          Log level
          <select name="level" defaultValue={s.logging.minimum_level} disabled={s.logging.environment_override}>
            {['debug', 'info', 'warn', 'error'].map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
        {s.logging.environment_override && <span className="meta">{s.logging.source} owns the level</span>}
        <button type="submit">Save</button>
      </form>
      <h3>Certificate</h3>
      <p className="meta">
        {cert.mode}: {cert.status_hint}
        {cert.certificate ? ` · ${cert.certificate.subject}, ${cert.certificate.days_left} days left` : ''}
      </p>
      <h3>Evidence storage</h3>
      <p className="meta">
        {st.used_percent}% used of {MB(st.capacity_bytes)} · {st.attachment_count} attachments ({MB(st.logical_bytes)})
        · failed jobs {st.failed_jobs} · refused at the critical watermark {st.pressure_dropped_attachments}
      </p>
      <StorageForm
        current={s.evidence_storage.effective}
        onSave={(ev, ack) =>
          save({ evidence_storage: ev, ...(ack ? { acknowledge_destructive_volume_retention: true } : {}) })
        }
        onTest={async (ev) => {
          try {
            const r = await probe.mutateAsync({ evidence_storage: ev } as Parameters<typeof probe.mutateAsync>[0]);
            return r.rotation_blocked
              ? 'The storage answers, but cannot be chosen until the retired one is empty.'
              : 'The storage answers: a probe was written, read back and deleted.';
          } catch (err) {
            return errorSentence(err);
          }
        }}
      />
      {s.notifications && (
        <>
          <h3>Notifications</h3>
          <NotificationsSettingsForm current={s.notifications} onSave={save} />
        </>
      )}
    </section>
  );
}
