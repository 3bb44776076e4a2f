import { useState } from 'react';
import { errorSentence } from '../../api/error-words.js';
import type { Channel } from '../../api/notifications.js';
import { ChannelForm, type ChannelValues } from '../../components/channel-form.js';
import { ConfirmButton } from '../../components/confirm.js';
import { ListState } from '../../components/list-state.js';
import { NotificationsTabs } from '../../components/notifications-tabs.js';
import { useChannelEdits, useChannels } from '../../hooks/use-notifications.js';
import { channelTarget, KIND_NAMES, testOutcome } from '../../lib/notification-text.js';

/**
 * Notification channels (issue 24, administrators): where rules send. Create, edit (on the
 * revision read), enable or disable, send a test message (its outcome said in words, the
 * receiver's refusal included), delete with the name typed.
 */
export function NotificationChannelsPage() {
  const channels = useChannels();
  const edits = useChannelEdits();
  const [editing, setEditing] = useState<Channel | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [rowError, setRowError] = useState<string | null>(null);
  const [tested, setTested] = useState<Record<string, string>>({});

  const done = () => {
    setEditing(null);
    setError(null);
  };
  const save = (v: ChannelValues) => {
    setError(null);
    const fail = (e: unknown) => setError(errorSentence(e));
    if (editing === 'new') edits.create.mutate(v, { onSuccess: done, onError: fail });
    else if (editing) {
      // The kind is the channel's; the plane takes the fields of that kind only.
      const { kind: _kind, ...fields } = v;
      edits.change.mutate(
        { id: editing.id, body: { ...fields, revision: editing.revision } },
        { onSuccess: done, onError: fail },
      );
    }
  };
  const toggle = (c: Channel) =>
    edits.change.mutate(
      { id: c.id, body: { revision: c.revision, enabled: !c.enabled } },
      { onSuccess: () => setRowError(null), onError: (e) => setRowError(errorSentence(e)) },
    );
  const test = (c: Channel) => {
    setTested((t) => ({ ...t, [c.id]: 'Sending a test message…' }));
    edits.test.mutate(c.id, {
      onSuccess: (d) => setTested((t) => ({ ...t, [c.id]: testOutcome(d) })),
      onError: (e) => setTested((t) => ({ ...t, [c.id]: `The test could not be sent: ${errorSentence(e)}` })),
    });
  };

  return (
    <section className="admin">
      <h2>Notifications</h2>
      <NotificationsTabs />
      <p className="meta">
        A channel is a webhook, an e-mail list (through the plane&apos;s SMTP server) or an MQTT topic. Secrets and
        passwords are never shown again once saved.
      </p>
      {editing ? (
        <ChannelForm
          key={editing === 'new' ? 'new' : `${editing.id}:${editing.revision}`}
          channel={editing === 'new' ? undefined : editing}
          busy={edits.create.isPending || edits.change.isPending}
          error={error}
          onSubmit={save}
          onCancel={done}
        />
      ) : (
        <button className="new" onClick={() => setEditing('new')}>
          New channel
        </button>
      )}
      {rowError && (
        <p className="error" role="alert">
          {rowError}
        </p>
      )}
      <ListState
        what="The notification channels"
        query={channels}
        isEmpty={(d) => d.rows.length === 0}
        empty="No channel yet: create one, then a rule that sends to it."
      >
        {(list) => (
          <div className="table-scroll">
            <table className="list cards">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Kind</th>
                  <th>Sends to</th>
                  <th>State</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {list.rows.map((c) => (
                  <tr key={c.id} data-channel={c.name}>
                    <td className="name">{c.name}</td>
                    <td data-label="Kind">{KIND_NAMES[c.kind] ?? c.kind}</td>
                    <td data-label="Sends to">{channelTarget(c)}</td>
                    <td data-label="State">{c.enabled ? 'enabled' : 'disabled'}</td>
                    <td className="actions">
                      <button onClick={() => test(c)} disabled={tested[c.id] === 'Sending a test message…'}>
                        Test
                      </button>
                      <button onClick={() => setEditing(c)}>Edit</button>
                      <button onClick={() => toggle(c)}>{c.enabled ? 'Disable' : 'Enable'}</button>
                      <ConfirmButton
                        name={c.name}
                        consequence="Rules that send to it must be changed first."
                        onConfirm={() => edits.remove.mutateAsync(c.id)}
                      />
                      {tested[c.id] && (
                        <p role="status" className="test-outcome">
                          {tested[c.id]}
                        </p>
                      )}
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
