import { useUsage } from '../../hooks/use-orgs.js';

const PAIRS: Array<[string, string, string]> = [
  ['Cameras', 'cameras_count', 'max_cameras'],
  ['People', 'users_count', 'max_users'],
  ['Evidence bytes', 'attachment_bytes', 'attachment_quota_bytes'],
  ['Dashboards', 'dashboards_count', 'max_dashboards'],
  ['Reports', 'reports_count', 'max_reports'],
  ['Tags', 'tags_count', 'max_tags'],
  ['Event templates', 'event_templates_count', 'max_event_templates'],
];

/** The organisation's use against its quotas (GET /usage); over 80% is marked, as the monitoring guidance alerts. */
export function UsagePage() {
  const usage = useUsage();
  if (usage.isPending) return <p className="empty">Loading…</p>;
  if (usage.isError) return <p className="error">The usage could not be read.</p>;
  // Read by name from the table above: counts and quotas (null: unlimited).
  const u = usage.data as Record<string, unknown>;
  return (
    <section className="admin">
      <h2>Usage of {String(u.org_name)}</h2>
      <table className="list">
        <tbody>
          {PAIRS.map(([label, count, max]) => {
            const n = Number(u[count] ?? 0),
              m = u[max] === null ? null : Number(u[max]);
            const pct = m ? Math.min(100, (n / m) * 100) : 0;
            return (
              <tr key={count} data-usage={count} className={m && n / m > 0.8 ? 'near' : ''}>
                <td>{label}</td>
                <td>
                  {n.toLocaleString()} of {m === null ? 'unlimited' : m.toLocaleString()}
                </td>
                <td className="usage-bar">
                  <span style={{ width: `${pct}%` }} />
                </td>
              </tr>
            );
          })}
          <tr>
            <td>Events</td>
            <td>{Number(u.events_count ?? 0).toLocaleString()}</td>
            <td />
          </tr>
        </tbody>
      </table>
    </section>
  );
}
