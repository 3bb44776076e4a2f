import type { PlaneApp } from '../http/typed.js';
import type { ErrorName } from '../errors.js';
import { principalOf } from '../http/principal.js';
import { Deleted, IdParams, ListQuery, Page, sec, strictBody, validationCodes } from '../http/list.js';
import type { RulesService } from './rules.service.js';
import type { ChannelsService } from './channels.service.js';
import type { DeliveriesService } from './deliveries.service.js';
import {
  ChannelBody,
  ChannelOut,
  ChannelPatch,
  DeliveryListQuery,
  DeliveryOut,
  RuleBody,
  RuleOut,
  RulePatch,
} from './notifications.schemas.js';

const config = { validationCode: validationCodes({ revision: 'bad_request' }) };
const tags = ['notifications'];
const RULE = [
  'bad_name',
  'bad_request',
  'bad_match',
  'bad_schedule',
  'bad_cooldown',
  'bad_channel_ids',
  'unknown_channel',
  'unknown_camera',
  'unknown_tag',
] as const satisfies readonly ErrorName[];
const CHANNEL = [
  'bad_name',
  'bad_request',
  'bad_channel_kind',
  'bad_channel_settings',
  'bad_url',
  'target_refused',
] as const satisfies readonly ErrorName[];

/** Administrator scope (document 4 §13): an organisation's administrators, a superadmin any organisation. */
export function notificationsRoutes(
  app: PlaneApp,
  deps: { rules: RulesService; channels: ChannelsService; deliveries: DeliveriesService },
): void {
  const { rules, channels, deliveries } = deps;

  app.get(
    '/api/v1/notification-rules',
    {
      schema: {
        tags,
        security: sec,
        querystring: ListQuery,
        response: { 200: Page(RuleOut) },
        summary: "The organisation's notification rules (superadmin: all, or `org`)",
        errors: ['crossOrg'],
      },
      config,
    },
    async (req) => rules.list(principalOf(req), req.query),
  );
  app.post(
    '/api/v1/notification-rules',
    {
      schema: {
        tags,
        security: sec,
        body: RuleBody,
        response: { 201: RuleOut },
        summary: 'Create a notification rule',
        description:
          'match {detectors (masks, `*` suffix), severity_min 0..4, camera_ids, tag_ids, categories, open_only}; schedule null or {timezone, windows [{days 1..7 (1 = Monday), from, to}]}; cooldown_secs 0..86400; channel_ids 1..8.',
        errors: [...RULE, 'unknown_org', 'crossOrg', 'alreadyExists'],
      },
      preValidation: strictBody(RuleBody, { revision: 'bad_request' }),
      config,
    },
    async (req, reply) => reply.code(201).send(await rules.create(principalOf(req), req.body)),
  );
  app.get(
    '/api/v1/notification-rules/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: RuleOut },
        summary: 'One rule',
        errors: ['notFound'],
      },
    },
    async (req) => rules.get(principalOf(req), req.params.id),
  );
  app.patch(
    '/api/v1/notification-rules/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        body: RulePatch,
        response: { 200: RuleOut },
        summary: 'Change a rule (the revision it was read at; 409 stale_revision when another change came first)',
        errors: [...RULE, 'notFound', 'stale_revision', 'alreadyExists'],
      },
      preValidation: strictBody(RulePatch, { revision: 'bad_request' }),
      config,
    },
    async (req) => rules.update(principalOf(req), req.params.id, req.body),
  );
  app.delete(
    '/api/v1/notification-rules/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
        summary: 'Delete a rule (its deliveries not yet sent go with it)',
        errors: ['notFound'],
      },
    },
    async (req) => rules.delete(principalOf(req), req.params.id),
  );

  app.get(
    '/api/v1/notification-channels',
    {
      schema: {
        tags,
        security: sec,
        querystring: ListQuery,
        response: { 200: Page(ChannelOut) },
        summary: "The organisation's notification channels, without secrets",
        errors: ['crossOrg'],
      },
      config,
    },
    async (req) => channels.list(principalOf(req), req.query),
  );
  app.post(
    '/api/v1/notification-channels',
    {
      schema: {
        tags,
        security: sec,
        body: ChannelBody,
        response: { 201: ChannelOut },
        summary: 'Create a channel',
        description:
          'kind webhook {url, secret (write-only), headers}, email {to 1..32}, mqtt {url mqtt:// or mqtts://, topic ({org}, {camera}, {detector}), username, password (write-only), qos 1}.',
        errors: [...CHANNEL, 'unknown_org', 'crossOrg', 'alreadyExists'],
      },
      preValidation: strictBody(ChannelBody, { revision: 'bad_request' }),
      config,
    },
    async (req, reply) => reply.code(201).send(await channels.create(principalOf(req), req.body)),
  );
  app.get(
    '/api/v1/notification-channels/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: ChannelOut },
        summary: 'One channel, without secrets',
        errors: ['notFound'],
      },
    },
    async (req) => channels.get(principalOf(req), req.params.id),
  );
  app.patch(
    '/api/v1/notification-channels/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        body: ChannelPatch,
        response: { 200: ChannelOut },
        summary: 'Change a channel (the revision it was read at); its kind stays',
        errors: [...CHANNEL, 'notFound', 'stale_revision', 'alreadyExists'],
      },
      preValidation: strictBody(ChannelPatch, { revision: 'bad_request' }),
      config,
    },
    async (req) => channels.update(principalOf(req), req.params.id, req.body),
  );
  app.delete(
    '/api/v1/notification-channels/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
        summary: 'Delete a channel no rule sends to (its deliveries go with it)',
        errors: ['notFound', 'stillReferenced'],
      },
    },
    async (req) => channels.delete(principalOf(req), req.params.id),
  );
  app.post(
    '/api/v1/notification-channels/:id/test',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: DeliveryOut },
        summary: 'Send one test message now; its delivery (sent, or dead with last_error)',
        errors: ['notFound'],
      },
    },
    async (req) => channels.test(principalOf(req), req.params.id),
  );

  app.get(
    '/api/v1/notification-deliveries',
    {
      schema: {
        tags,
        security: sec,
        querystring: DeliveryListQuery,
        response: { 200: Page(DeliveryOut) },
        summary: 'The delivery log, oldest first (filters rule_id, channel_id, state, event_id)',
        errors: ['crossOrg'],
      },
      config,
    },
    async (req) => deliveries.list(principalOf(req), req.query),
  );
  app.post(
    '/api/v1/notification-deliveries/:id/retry',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: DeliveryOut },
        summary: 'Requeue a dead delivery (409 delivery_not_dead otherwise)',
        errors: ['notFound', 'delivery_not_dead'],
      },
    },
    async (req) => deliveries.retry(principalOf(req), req.params.id),
  );
}
