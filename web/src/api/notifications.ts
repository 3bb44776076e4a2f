import { client, ok, sessionToken, type Reply, type Sent } from './client.js';
import { readSse } from '../lib/sse.js';
import type { StreamFrame } from '../lib/live-feed.js';

/**
 * The live event stream from now on (no cursor: live only, document 2), every frame handed to
 * `onFrame`; resolves when the stream ends, rejects when it is refused. The stream carries only
 * what the user may see: the plane applies the rights.
 */
export async function followNewEvents(onFrame: (frame: StreamFrame) => void, signal: AbortSignal): Promise<void> {
  await readSse(
    '/api/v1/events/stream',
    sessionToken() ?? '',
    {
      frame: (data) => {
        let frame: unknown;
        try {
          frame = JSON.parse(data);
        } catch {
          return;
        }
        if (frame && typeof frame === 'object' && typeof (frame as StreamFrame).id === 'string')
          onFrame(frame as StreamFrame);
      },
    },
    signal,
  );
}

/** A notification rule, channel and delivery as the plane lists them (document 4 §13; never a secret). */
export type Rule = Reply<'/api/v1/notification-rules'>['rows'][number];
export type Channel = Reply<'/api/v1/notification-channels'>['rows'][number];
export type RuleCreate = Sent<'/api/v1/notification-rules', 'post'>;
export type RuleChange = Sent<'/api/v1/notification-rules/{id}', 'patch'>;
export type ChannelCreate = Sent<'/api/v1/notification-channels', 'post'>;
export type ChannelChange = Sent<'/api/v1/notification-channels/{id}', 'patch'>;
export type DeliveryFilter = { rule_id?: string; channel_id?: string; state?: 'pending' | 'sent' | 'failed' | 'dead' };

export const notificationKeys = {
  rules: ['notification-rules'] as const,
  channels: ['notification-channels'] as const,
  deliveries: (f: DeliveryFilter) => ['notification-deliveries', f] as const,
  allDeliveries: ['notification-deliveries'] as const,
};

export const listRules = () => ok(client.GET('/api/v1/notification-rules'));
export const createRule = (body: RuleCreate) => ok(client.POST('/api/v1/notification-rules', { body }));
/** A change on the revision it was made from (409 stale_revision when someone saved in between). */
export const changeRule = (id: string, body: RuleChange) =>
  ok(client.PATCH('/api/v1/notification-rules/{id}', { params: { path: { id } }, body }));
export const deleteRule = (id: string) =>
  ok(client.DELETE('/api/v1/notification-rules/{id}', { params: { path: { id } } }));

export const listChannels = () => ok(client.GET('/api/v1/notification-channels'));
export const createChannel = (body: ChannelCreate) => ok(client.POST('/api/v1/notification-channels', { body }));
export const changeChannel = (id: string, body: ChannelChange) =>
  ok(client.PATCH('/api/v1/notification-channels/{id}', { params: { path: { id } }, body }));
export const deleteChannel = (id: string) =>
  ok(client.DELETE('/api/v1/notification-channels/{id}', { params: { path: { id } } }));
/** One test message now; the answer is its delivery (sent, or dead with last_error). */
export const testChannel = (id: string) =>
  ok(client.POST('/api/v1/notification-channels/{id}/test', { params: { path: { id } } }));

/** A page of the delivery log, newest first, from `after` (the previous page's `next`). */
export const listDeliveries = (f: DeliveryFilter, after?: string) =>
  ok(
    client.GET('/api/v1/notification-deliveries', {
      params: { query: { ...f, order: 'newest', ...(after ? { after } : {}) } },
    }),
  );
/** A dead delivery queued again (409 delivery_not_dead otherwise). */
export const retryDelivery = (id: string) =>
  ok(client.POST('/api/v1/notification-deliveries/{id}/retry', { params: { path: { id } } }));
