import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Database, Db } from '../db/database.js';
import { primaryReads } from '../db/replicas.js';
import type { ReadRoute } from '../db/database.types.js';
import { ReadMarks } from './feed/read-marks.js';
import type { PlaneConfig } from '../config/config.js';
import type { AuditService } from '../audit/audit.service.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import type { ModuleTokensService } from '../module-tokens/module-tokens.service.js';
import type { TemplateCache } from '../templates/template.cache.js';
import type { TemplatesService } from '../templates/templates.service.js';
import type { Job } from '../jobs/jobs.js';
import type { PlaneApp } from '../http/typed.js';
import type { LiveBus } from '../live/bus.js';
import type { LiveStreams } from '../live/sse.js';
import type { EvidenceService } from '../evidence/evidence.service.js';
import { VolumeRetention } from './retention/volume-retention.js';
import { EventLog } from './log/event-log.js';
import { eventsStore } from './log/events.store.js';
import { EventNotifier } from './log/notifier.js';
import type { EventOutbox } from './log/outbox.port.js';
import { streamStore } from './log/stream.store.js';
import { framesStore, storedFrame } from './log/frames.store.js';
import { timeOfEventId } from './log/events.ids.js';
import type { EventFrame } from './log/events.frames.js';
import { IntakeService } from './intake/intake.service.js';
import { IntakeRateLimiter } from './intake/rate-limit.js';
import { intakeRoutes } from './intake/intake.routes.js';
import { EventsService } from './feed/events.service.js';
import { EventSearch } from './feed/search.js';
import { searchPendingJob } from './feed/search-pending.js';
import { recentDetectors } from './feed/detectors.store.js';
import { eventsCloseRoute, eventsReadRoutes } from './feed/events.routes.js';
import { NavigationService } from './navigation/navigation.service.js';
import { eventsNavigationRoutes } from './navigation/navigation.routes.js';
import { EventRing } from './stream/stream.ring.js';
import { StreamRights } from './stream/stream.rights.js';
import { EventStreamService } from './stream/stream.service.js';
import { eventStreamRoutes } from './stream/stream.routes.js';
import { SystemEvents } from './system/system-events.js';
import { intervalTimeoutsJob } from './system/interval-timeouts.js';
import { PurgeService } from './retention/purge.service.js';
import { ArchiveService } from './retention/archive.service.js';
import { PurgeRecordsPruner } from './retention/prune.js';
import { purgeRoutes } from './retention/purge.routes.js';
import { AnalyticsService } from './analytics/analytics.service.js';
import { analyticsRoutes } from './analytics/analytics.routes.js';
import { analyticsLimits, type AnalyticsLimits } from './analytics/analytics.gate.js';

export type { SystemClose, SystemOpen, SystemEvents, TimedClose } from './system/system-events.js';

/** What the event domains need from the rest of the plane: all of it given, nothing reached for. */
export interface EventsDeps {
  db: Db;
  clock: Clock;
  config: PlaneConfig;
  log: Pick<Logger, 'warn'>;
  audit: AuditService;
  orgs: OrgsService;
  moduleTokens: ModuleTokensService;
  templates: TemplatesService;
  templateCache: TemplateCache;
  /** the live SSE streams of the process (capacity, lifetime) */
  streams: LiveStreams;
  /** the evidence domain: attachments checked and linked at intake, deleted with their events, how full the storage is */
  evidence: EvidenceService;
  /** the pool's size (analytics' share of it) and the cancel of a running statement */
  database: Pick<Database, 'poolStats' | 'cancel'>;
  /** tests: smaller analytics limits than the pool's (a short deadline, fewer slots) */
  analyticsLimits?: Partial<AnalyticsLimits>;
  /** notifications' outbox: the log writes the deliveries of new events in their transaction */
  outbox?: EventOutbox;
  /**
   * where reads that may lag go (feed and search pages, analytics: document 4, section 15); the
   * card, a star and everything that writes stay on `db`. Absent: the primary.
   */
  reads?: ReadRoute;
}

/**
 * The recent detector ids of events matching a template mask, for the templates domain (its
 * `matches` route), which is built before the events: a function of the database alone.
 */
export function eventDetectors(db: Db) {
  return (orgId: string | null, mask: string, since: Date) => recentDetectors(db, orgId, mask, since);
}

/**
 * The frames of stored events by id (an id carries its partition), for notifications' outbox,
 * which is built before the events: a function of the transaction it reads in. An id not found
 * (removed since) is absent from the map.
 */
export async function eventFrames(db: Db, ids: string[]): Promise<Map<string, EventFrame>> {
  const keys = ids.flatMap((id) => {
    const occurred_at = timeOfEventId(id);
    return occurred_at ? [{ id, occurred_at }] : [];
  });
  const rows = await framesStore.ofKeys(db, keys);
  return new Map(rows.map((r) => [r.id, storedFrame(r)]));
}

/**
 * The event domains, built once in dependency order: the log (the only writer of event tables)
 * first, then intake, feed and search, navigation, the live stream, system events and retention
 * (purge, archive cleanup, pruning). Evidence is a domain of its own (evidence/evidence.module.ts),
 * built before and given. Returns the services, the route registrations per scope, the named
 * jobs and the live start.
 */
export function createEvents(deps: EventsDeps) {
  const { db, clock, config, log, audit, moduleTokens, templateCache, streams, evidence } = deps;
  const reads = deps.reads ?? primaryReads(db);

  const ring = new EventRing(
    {
      safeHead: () => eventsStore.safeHead(db),
      latest: (upTo, limit) => streamStore.latest(db, upTo, limit),
      range: (after, upTo, limit) => streamStore.range(db, after, upTo, limit),
      at: (seqs) => streamStore.at(db, seqs),
    },
    log,
  );
  const eventLog = new EventLog(db, new EventNotifier(db, log, ring), deps.outbox ?? null);

  const intake = new IntakeService(
    clock,
    moduleTokens,
    evidence,
    new IntakeRateLimiter(clock, config.moduleRateLimitDefault),
    eventLog,
    templateCache,
  );
  // Pages and batches read where `marks` says, with a stream cursor that page has read past.
  const marks = new ReadMarks(reads, eventLog, db);
  const events = new EventsService(
    db,
    clock,
    eventLog,
    new EventSearch(reads.db),
    (id) => deps.templates.byId(id),
    marks,
  );
  const navigation = new NavigationService(db, events);

  const rights = new StreamRights(db);
  const stream = new EventStreamService(clock, ring, streams, rights);

  const system = new SystemEvents(templateCache, eventLog);
  const purge = new PurgeService(db, clock, audit, evidence, eventLog, log);
  // The org-removal service queues an organisation's archive cleanup through it (OrgArchiver).
  const archive = new ArchiveService(db, clock, evidence, moduleTokens, deps.orgs, eventLog, log);
  const retention = new VolumeRetention(
    db,
    clock,
    audit,
    evidence,
    eventLog,
    {
      enabled: config.evidencePressure.volumeRetention === 'oldest_purge_day',
      lowPercent: config.evidencePressure.lowPercent,
      highPercent: config.evidencePressure.highPercent,
    },
    log,
  );
  const pruner = new PurgeRecordsPruner(eventLog, clock, evidence, {
    retentionMs: config.purgeRecordRetentionDays * 86_400_000,
  });

  // Analytics keep a share of the pool for everything else (issue 25, docs/analytics.md).
  const analytics = new AnalyticsService(reads.db, clock, deps.templates, marks, {
    limits: analyticsLimits(deps.database.poolStats().max, deps.analyticsLimits),
    cancel: (pid, standby) => (standby ? reads.cancel(pid) : deps.database.cancel(pid)),
  });

  const ensurePartitions = () => eventLog.ensurePartitions(clock.now());

  return {
    log: eventLog,
    intake,
    events,
    navigation,
    ring,
    stream,
    system,
    purge,
    archive,
    analytics,
    retention,

    /** Live frames between processes: the ring follows argus_events, stream rights follow argus_rights. */
    startLive(bus: LiveBus): void {
      ring.start(bus);
      rights.start(bus);
    },

    /** Daily event partitions from 32 days back (the intake window is 30) to 3 days ahead. */
    ensurePartitions,

    /** The routes of the event domains, by the scope that registers them (routes.ts holds the scopes). */
    routes: {
      /** module token (intake and attachment upload) */
      moduleToken(app: PlaneApp): void {
        intakeRoutes(app, { intake, evidence });
      },
      /** session or module token (closing an interval) */
      sessionOrModuleToken(app: PlaneApp): void {
        eventsCloseRoute(app, { events });
      },
      /** any signed-in user, narrowed by camera rights */
      session(app: PlaneApp): void {
        eventStreamRoutes(app, { stream });
        eventsReadRoutes(app, { events, evidence });
        eventsNavigationRoutes(app, { navigation });
        analyticsRoutes(app, { analytics });
      },
      /** superadmin: purge of history and cleanup jobs */
      superadmin(app: PlaneApp): void {
        purgeRoutes(app, { purge });
      },
    },

    /** The named jobs, started once the database is ready. */
    jobs(): Job[] {
      return [
        {
          name: 'events.partitions',
          everyMs: 3600_000,
          budgetMs: 30_000,
          run: async () => {
            await ensurePartitions();
          },
        },
        purge.backgroundJob(),
        archive.backgroundJob(),
        retention.job(),
        pruner.job(),
        intervalTimeoutsJob(eventLog, clock),
        searchPendingJob(db, clock),
        ...marks.jobs(),
      ];
    },

    stop(): void {
      ring.stop();
    },
  };
}

export type Events = ReturnType<typeof createEvents>;
