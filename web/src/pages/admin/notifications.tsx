import { useState } from 'react';
import { errorSentence } from '../../api/error-words.js';
import type { Rule } from '../../api/notifications.js';
import { ConfirmButton } from '../../components/confirm.js';
import { CriticalAlertSwitch } from '../../components/critical-alerts.js';
import { ListState } from '../../components/list-state.js';
import { NotificationsTabs } from '../../components/notifications-tabs.js';
import { RuleForm, type RuleValues } from '../../components/rule-form.js';
import { useCameras } from '../../hooks/use-cameras.js';
import { useChannels, useRuleEdits, useRules } from '../../hooks/use-notifications.js';
import { useTags } from '../../hooks/use-users.js';
import { cooldownText, matchSummary, scheduleSummary } from '../../lib/notification-text.js';

/**
 * Notification rules (issue 24, administrators): which events reach which channels. Create, edit
 * (on the revision read: a rule saved meanwhile by someone else is refused in words), enable or
 * disable, delete with the name typed; and this browser's live alert for critical events.
 */
export function NotificationsPage() {
  const rules = useRules();
  const channels = useChannels();
  const cameras = useCameras();
  const tags = useTags();
  const edits = useRuleEdits();
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [rowError, setRowError] = useState<string | null>(null);

  const cameraList = (cameras.data ?? []).map((c) => ({ id: c.id, name: c.name }));
  const cameraName = (id: string) => cameraList.find((c) => c.id === id)?.name;
  const channelList = channels.data?.rows ?? [];
  const channelName = (id: string) => channelList.find((c) => c.id === id)?.name ?? 'a channel';
  const done = () => {
    setEditing(null);
    setError(null);
  };
  const save = (v: RuleValues) => {
    setError(null);
    if (editing === 'new') edits.create.mutate(v, { onSuccess: done, onError: (e) => setError(errorSentence(e)) });
    else if (editing)
      edits.change.mutate(
        { id: editing.id, body: { ...v, revision: editing.revision } },
        { onSuccess: done, onError: (e) => setError(errorSentence(e)) },
      );
  };
  const toggle = (r: Rule) =>
    edits.change.mutate(
      { id: r.id, body: { revision: r.revision, enabled: !r.enabled } },
      { onSuccess: () => setRowError(null), onError: (e) => setRowError(errorSentence(e)) },
    );

  return (
    <section className="admin">
      <h2>Notifications</h2>
      <NotificationsTabs />
      <p className="meta">
        A rule sends the events it matches to its channels, at least once: a receiver that is down gets them when it is
        back (retried for 24 hours).
      </p>
      <CriticalAlertSwitch />
      {editing ? (
        <RuleForm
          key={editing === 'new' ? 'new' : `${editing.id}:${editing.revision}`}
          rule={editing === 'new' ? undefined : editing}
          channels={channelList}
          cameras={cameraList}
          tags={(tags.data?.rows ?? []).map((t) => ({ id: t.id, name: t.name }))}
          busy={edits.create.isPending || edits.change.isPending}
          error={error}
          onSubmit={save}
          onCancel={done}
        />
      ) : (
        <button className="new" onClick={() => setEditing('new')}>
          New rule
        </button>
      )}
      {rowError && (
        <p className="error" role="alert">
          {rowError}
        </p>
      )}
      <ListState
        what="The notification rules"
        query={rules}
        isEmpty={(d) => d.rows.length === 0}
        empty="No rule yet: a rule sends matching events to a webhook, e-mail or MQTT channel."
      >
        {(list) => (
          <div className="table-scroll">
            <table className="list cards">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Matches</th>
                  <th>When</th>
                  <th>Cooldown</th>
                  <th>Channels</th>
                  <th>Held back</th>
                  <th>State</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {list.rows.map((r) => (
                  <tr key={r.id} data-rule={r.name}>
                    <td className="name">{r.name}</td>
                    <td data-label="Matches">{matchSummary(r.match, cameraName)}</td>
                    <td data-label="When">{scheduleSummary(r.schedule)}</td>
                    <td data-label="Cooldown">{cooldownText(r.cooldown_secs)}</td>
                    <td data-label="Channels">{r.channel_ids.map(channelName).join(', ')}</td>
                    <td data-label="Held back" title="Matching events not sent inside the cooldown">
                      {r.suppressed_count}
                    </td>
                    <td data-label="State">{r.enabled ? 'enabled' : 'disabled'}</td>
                    <td className="actions">
                      <button onClick={() => setEditing(r)}>Edit</button>
                      <button onClick={() => toggle(r)}>{r.enabled ? 'Disable' : 'Enable'}</button>
                      <ConfirmButton
                        name={r.name}
                        consequence="Its deliveries not yet sent go with it."
                        onConfirm={() => edits.remove.mutateAsync(r.id)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListState>
    </section>
  );
}
