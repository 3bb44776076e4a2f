import { useState } from 'react';
import { Link } from '../../router.js';
import { errorSentence } from '../../api/error-words.js';
import type { DeliveryFilter } from '../../api/notifications.js';
import { Field } from '../../components/field.js';
import { ListState } from '../../components/list-state.js';
import { NotificationsTabs } from '../../components/notifications-tabs.js';
import { Time } from '../../components/time.js';
import { useChannels, useDeliveries, useRetryDelivery, useRules } from '../../hooks/use-notifications.js';
import { STATE_NAMES } from '../../lib/notification-text.js';

type State = NonNullable<DeliveryFilter['state']>;
const STATES: State[] = ['pending', 'sent', 'failed', 'dead'];

/**
 * The delivery log (issue 24, administrators): one row per event, rule and channel, newest first,
 * filtered by rule, channel and state, each with a link to its event, read again every 15 s (a
 * failing delivery's attempts move); a delivery the plane gave up on (dead, after 24 hours of
 * retries) can be queued again with Retry.
 */
export function NotificationDeliveriesPage() {
  const [filter, setFilter] = useState<DeliveryFilter>({});
  const deliveries = useDeliveries(filter);
  const rules = useRules();
  const channels = useChannels();
  const retry = useRetryDelivery();
  const [error, setError] = useState<string | null>(null);
  // A name missing from its loaded list is a deleted one; one whose list did not load is unknown
  // (the rows wait for both lists: shown before them, a live channel read as "a deleted channel").
  const nameIn = (list: typeof rules | typeof channels, id: string, gone: string) =>
    list.data ? (list.data.rows.find((x) => x.id === id)?.name ?? gone) : 'not known (its list did not load)';
  const ruleName = (id: string | null) => (id === null ? 'test message' : nameIn(rules, id, 'a deleted rule'));
  const channelName = (id: string) => nameIn(channels, id, 'a deleted channel');
  const set = (k: keyof DeliveryFilter, v: string) => setFilter((f) => ({ ...f, [k]: v || undefined }));

  const rows = deliveries.data?.pages.flatMap((p) => p.rows);
  return (
    <section className="admin">
      <h2>Notifications</h2>
      <NotificationsTabs />
      <div className="filters">
        <Field label="Rule">
          {(c) => (
            <select {...c} name="rule" value={filter.rule_id ?? ''} onChange={(e) => set('rule_id', e.target.value)}>
              <option value="">Any rule</option>
              {(rules.data?.rows ?? []).map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Channel">
          {(c) => (
            <select
              {...c}
              name="channel"
              value={filter.channel_id ?? ''}
              onChange={(e) => set('channel_id', e.target.value)}
            >
              <option value="">Any channel</option>
              {(channels.data?.rows ?? []).map((ch) => (
                <option key={ch.id} value={ch.id}>
                  {ch.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="State">
          {(c) => (
            <select {...c} name="state" value={filter.state ?? ''} onChange={(e) => set('state', e.target.value)}>
              <option value="">Any state</option>
              {STATES.map((s) => (
                <option key={s} value={s}>
                  {STATE_NAMES[s]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <ListState
        what="The delivery log"
        query={{ ...deliveries, data: rows, isPending: deliveries.isPending || rules.isPending || channels.isPending }}
        isEmpty={(d) => d.length === 0}
        empty="No delivery with these filters."
      >
        {(list) => (
          <>
            <div className="table-scroll">
              <table className="list cards">
                <thead>
                  <tr>
                    <th>Created</th>
                    <th>Event</th>
                    <th>Rule</th>
                    <th>Channel</th>
                    <th>State</th>
                    <th>Attempts</th>
                    <th>Last error</th>
                    <th>Next attempt / sent</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {list.map((d) => (
                    <tr key={d.id} data-delivery={d.id}>
                      <td className="name">
                        <Time at={d.created_at} />
                      </td>
                      <td>
                        {d.event_id ? <Link to={`/events/${encodeURIComponent(d.event_id)}`}>Open</Link> : 'none'}
                      </td>
                      <td data-label="Rule">{ruleName(d.rule_id)}</td>
                      <td data-label="Channel">{channelName(d.channel_id)}</td>
                      <td data-label="State">{STATE_NAMES[d.state] ?? d.state}</td>
                      <td data-label="Attempts">{d.attempts}</td>
                      <td data-label="Last error">{d.last_error ?? ''}</td>
                      <td data-label={d.sent_at ? 'Sent' : 'Next attempt'}>
                        {d.sent_at ? <Time at={d.sent_at} /> : d.next_attempt_at ? <Time at={d.next_attempt_at} /> : ''}
                      </td>
                      <td className="actions">
                        {d.state === 'dead' && (
                          <button
                            disabled={retry.isPending}
                            onClick={() =>
                              retry.mutate(d.id, {
                                onSuccess: () => setError(null),
                                onError: (e) => setError(errorSentence(e)),
                              })
                            }
                          >
                            Retry
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {deliveries.hasNextPage && (
              <button onClick={() => void deliveries.fetchNextPage()} disabled={deliveries.isFetchingNextPage}>
                Load more
              </button>
            )}
          </>
        )}
      </ListState>
    </section>
  );
}
