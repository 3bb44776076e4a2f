import { useState } from 'react';
import { errorSentence } from '../../api/error-words.js';
import { useCreateDashboard } from '../../hooks/use-dashboards.js';
import { useUsers } from '../../hooks/use-users.js';
import { PERIODS } from '../../lib/period.js';
import { navigate } from '../../router.js';

/** A new dashboard (administrators): name, audience (everyone, administrators, or chosen operators), period, zone, live. */
export function CreateDashboard() {
  const users = useUsers();
  const create = useCreateDashboard();
  const [f, setF] = useState({
    name: '',
    visibility: 'org',
    default_period: 'last_24h',
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    live_enabled: true,
  });
  const [audience, setAudience] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="inline"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        try {
          const d = await create.mutateAsync({
            ...f,
            ...(f.visibility === 'users' ? { audience_user_ids: audience } : {}),
          });
          navigate(`/dashboards/${d.id}`);
        } catch (err) {
          setError(errorSentence(err));
        }
      }}
    >
      <label>
        New dashboard
        <input name="new-dashboard" value={f.name} onChange={(e) => setF({ ...f, name: e.target.value })} required />
      </label>
      <label>
        Seen by
        <select name="visibility" value={f.visibility} onChange={(e) => setF({ ...f, visibility: e.target.value })}>
          <option value="org">everyone</option>
          <option value="admins">administrators</option>
          <option value="users">chosen operators</option>
        </select>
      </label>
      {f.visibility === 'users' && (
        <label>
          Operators
          <select
            name="audience"
            multiple
            value={audience}
            onChange={(e) => setAudience([...e.target.selectedOptions].map((o) => o.value))}
          >
            {users.data?.rows
              .filter((u) => u.role === 'user' && !u.disabled)
              .map((u) => (
                <option key={u.id} value={u.id}>
                  {u.login}
                </option>
              ))}
          </select>
        </label>
      )}
      <label>
        Period
        <select
          name="default_period"
          value={f.default_period}
          onChange={(e) => setF({ ...f, default_period: e.target.value })}
        >
          {PERIODS.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </label>
      <label>
        Time zone
        <input name="timezone" value={f.timezone} onChange={(e) => setF({ ...f, timezone: e.target.value })} />
      </label>
      <label className="row-label">
        <input
          type="checkbox"
          checked={f.live_enabled}
          onChange={(e) => setF({ ...f, live_enabled: e.target.checked })}
        />
        live
      </label>
      <button type="submit">Create</button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}
