import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import { SecretBox } from '../crypto/secret-box.js';
import type { PlaneConfig } from '../config/config.js';
import type { CamerasService } from '../cameras/cameras.service.js';
import type { TagsService } from '../tags/tags.service.js';
import type { SnapshotService } from '../evidence/snapshot.service.js';
import { WebhookSender } from './senders/webhook.js';
import { createChannelSenders } from './senders/index.js';
import type { LiveBus } from '../live/bus.js';
import type { DomainParts } from '../http/module.js';
import { RulesCache } from './rules.cache.js';
import { Outbox } from './outbox.js';
import { Dispatcher, type SenderMap } from './dispatcher.js';
import { DeliveryWorker } from './worker.js';
import type { EventFramesOf } from './outbox.expand.js';
import { RulesService } from './rules.service.js';
import { ChannelsService } from './channels.service.js';
import { DeliveriesService } from './deliveries.service.js';
import { notificationsRoutes } from './notifications.routes.js';

export type { SenderMap } from './dispatcher.js';

export interface NotificationsDeps {
  db: Db;
  clock: Clock;
  config: Pick<PlaneConfig, 'publicUrl' | 'allowPrivateTargets' | 'notifications'>;
  audit: AuditService;
  /** the key of the plane's secret box (channel secrets, bound to row and field); absent: this process's own */
  secretKey?: Uint8Array;
  /** rules name cameras and tags of their organisation; the outbox reads the cameras' tags */
  cameras: Pick<CamerasService, 'requireInOrg' | 'tagsOf'>;
  tags: Pick<TagsService, 'requireInOrg'>;
  log: Logger;
  /** rule changes and committed deliveries reach every plane process through it */
  bus: LiveBus;
  /** an event's snapshot: its signed link in every message, its bytes inline in e-mail; absent: none */
  snapshots?: Pick<SnapshotService, 'of' | 'bytes'>;
  /** the frames of stored events by id (the event log's reader): deliveries carry them */
  eventFrames: EventFramesOf;
  /** the sender of each channel kind; absent: notificationSenders() */
  senders?: SenderMap;
  /** tests: a shorter lease (a killed process's deliveries are claimed again sooner), attempt bound, rate */
  options?: {
    leaseMs?: number;
    sendTimeoutMs?: number;
    concurrency?: number;
    channelRate?: number;
    random?: () => number;
  };
}

/** The senders of the plane, one per channel kind: webhook, e-mail through `[notifications.smtp]`, MQTT. */
export function notificationSenders(clock: Clock, config: NotificationsDeps['config']): SenderMap & { close(): void } {
  const webhook = new WebhookSender(clock, config.allowPrivateTargets);
  const others = createChannelSenders(config.notifications);
  return {
    webhook,
    email: others.email,
    mqtt: others.mqtt,
    close: () => {
      webhook.close();
      void others.close();
    },
  };
}

/**
 * Notifications (issue 24, document 4 §13): rules, channels, the delivery log, the outbox the
 * event log writes through (built before the event domains, which are given `outbox`) and the
 * delivery worker of this process (its named job polls; the bus wakes it on commits).
 */
export function createNotifications(deps: NotificationsDeps): DomainParts & {
  outbox: Outbox;
  worker: DeliveryWorker;
  rules: RulesService;
  channels: ChannelsService;
  deliveries: DeliveriesService;
  cache: RulesCache;
  stop(): void;
} {
  const { db, clock, config } = deps;
  const o = deps.options ?? {};
  const log = deps.log.child({ part: 'notifications' });
  const box = new SecretBox(deps.secretKey ?? randomBytes(32));
  const cache = new RulesCache(db);
  const own = deps.senders ? null : notificationSenders(clock, config);
  const sendTimeoutMs = o.sendTimeoutMs ?? 15_000;
  const dispatcher = new Dispatcher(db, clock, box, deps.senders ?? own!, cache, {
    publicUrl: config.publicUrl,
    sendTimeoutMs,
    // Past the attempt's bound and the wait of a full lane behind a slow receiver.
    leaseMs: o.leaseMs ?? Math.max(60_000, sendTimeoutMs * 4),
    random: o.random ?? Math.random,
    snapshots: deps.snapshots ?? null,
  });
  const worker = new DeliveryWorker(
    db,
    clock,
    dispatcher,
    {
      channelRate: o.channelRate ?? config.notifications.channelRate,
      concurrency: o.concurrency ?? 8,
      batch: 500,
      deliver: config.notifications.deliver !== false,
    },
    log,
    deps.eventFrames,
  );
  const { cameras, tags } = deps;
  const outbox = new Outbox(
    clock,
    cache,
    (d, ids) => cameras.tagsOf(d, ids),
    () => worker.nudge(),
  );
  const inventory = {
    requireCameras: (d: Db, orgId: string, ids: string[]) => cameras.requireInOrg(d, orgId, ids),
    requireTags: (d: Db, orgId: string, ids: string[]) => tags.requireInOrg(d, orgId, ids),
  };
  const rules = new RulesService(db, clock, deps.audit, inventory, cache);
  const channels = new ChannelsService(db, clock, deps.audit, box, cache, dispatcher, config.allowPrivateTargets);
  cache.subscribe(deps.bus);
  worker.subscribe(deps.bus);
  const deliveries = new DeliveriesService(db, clock, () => worker.nudge(), deps.eventFrames);
  return {
    outbox,
    worker,
    rules,
    channels,
    deliveries,
    cache,
    routes: { admin: (app) => notificationsRoutes(app, { rules, channels, deliveries }) },
    jobs: () => [
      {
        // Every plane process: retries fall due, and a missed wake is made up within a second.
        name: 'notifications.deliver',
        everyMs: 1000,
        budgetMs: 1000,
        run: () => worker.poll(),
      },
    ],
    stop(): void {
      worker.stop();
      own?.close();
    },
  };
}
