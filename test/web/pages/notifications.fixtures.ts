/**
 * Replies for the notification pages' tests (issue 24), typed by the plane's OpenAPI document:
 * rules, channels and deliveries, the cameras and tags the rule form offers.
 */
import { answer, ORG, type Body } from './console.harness.js';
import { camera } from './fixtures.js';

export type RuleRow = Body<'/api/v1/notification-rules', 'get'>['rows'][number];
export type ChannelRow = Body<'/api/v1/notification-channels', 'get'>['rows'][number];
export type DeliveryRow = Body<'/api/v1/notification-deliveries', 'get'>['rows'][number];

export const uuid = (n: number) => `0190c0de-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
export const HOOK = uuid(0xc1);
export const MAIL = uuid(0xc2);
export const RULE = uuid(0xd1);
const STAMPS = { revision: 3, created_at: '2026-11-20T08:00:00.000Z', updated_at: '2026-11-21T08:00:00.000Z' };

export function rule(over: Partial<RuleRow> = {}): RuleRow {
  return {
    id: RULE,
    org_id: ORG,
    name: 'Night doors',
    enabled: true,
    match: {
      detectors: ['motion.*'],
      severity_min: 3,
      camera_ids: [camera().id],
      tag_ids: [],
      categories: [],
      open_only: false,
    },
    schedule: { timezone: 'Europe/Paris', windows: [{ days: [1, 2, 3, 4, 5], from: '18:00', to: '07:00' }] },
    cooldown_secs: 300,
    suppressed_count: 7,
    channel_ids: [HOOK],
    ...STAMPS,
    ...over,
  };
}

export function channel(over: Partial<ChannelRow> = {}): ChannelRow {
  return {
    id: HOOK,
    org_id: ORG,
    name: 'ops-hook',
    kind: 'webhook',
    enabled: true,
    url: 'https://hooks.example.org/argus',
    secret_configured: true,
    headers: {},
    ...STAMPS,
    ...over,
  };
}
export const mailChannel = () =>
  channel({
    id: MAIL,
    name: 'night-shift',
    kind: 'email',
    url: undefined,
    secret_configured: undefined,
    headers: undefined,
    to: ['ops@example.org', 'lead@example.org'],
  });

export function delivery(over: Partial<DeliveryRow> = {}): DeliveryRow {
  return {
    id: uuid(0xe1),
    dedupe_key: 'k1',
    event_id: uuid(0xf1),
    rule_id: RULE,
    channel_id: HOOK,
    org_id: ORG,
    state: 'sent',
    attempts: 1,
    last_error: null,
    next_attempt_at: null,
    sent_at: '2026-11-26T10:00:01.000Z',
    created_at: '2026-11-26T10:00:00.000Z',
    ...over,
  };
}

/** The reads every notification page makes besides its own list. */
export const around = (rules: RuleRow[] = [rule()], channels: ChannelRow[] = [channel(), mailChannel()]) => [
  answer('get', '/api/v1/notification-rules', { rows: rules, next: null }),
  answer('get', '/api/v1/notification-channels', { rows: channels, next: null }),
  answer('get', '/api/v1/cameras', { rows: [camera()], next: null }),
  answer('get', '/api/v1/tags', { rows: [], next: null }),
];
