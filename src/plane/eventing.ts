import type { Clock } from '../common/clock.js';
import type { Db } from './db/database.js';
import type { PlaneConfig } from './config/config.js';
import type { AuditService } from './audit/audit.service.js';
import type { InventoryServices } from './inventory.js';
import type { Job } from './jobs/jobs.js';
import { ModuleTokensService } from './module-tokens/module-tokens.service.js';
import { EvidenceService } from './evidence/evidence.service.js';
import { LocalEvidenceStorage, type EvidenceStorage } from './evidence/evidence.storage.js';
import { IntakeService } from './events/intake/intake.service.js';
import { EventsService } from './events/feed/events.service.js';
import { NavigationService } from './events/navigation/navigation.service.js';
import { PreviewBuilder } from './evidence/preview.builder.js';
import { PreviewService } from './evidence/preview.service.js';
import { IntakeRateLimiter } from './events/intake/rate-limit.js';
import { eventsStore } from './events/log/events.store.js';
import { EventNotifier } from './events/log/notifier.js';
import type { Logger } from 'pino';
import type { LiveBus } from './live/bus.js';
import type { LiveStreams } from './live/sse.js';
import { EventRing } from './events/stream/stream.ring.js';
import { StreamRights } from './events/stream/stream.rights.js';
import { EventStreamService } from './events/stream/stream.service.js';
import { PurgeService } from './events/retention/purge.service.js';
import { ArchiveService } from './events/retention/archive.service.js';
import { PurgeRecordsPruner } from './events/retention/prune.js';
import { TemplateCache } from './templates/template.cache.js';
import { TemplatesService } from './templates/templates.service.js';
import { recentDetectors } from './events/feed/detectors.store.js';
import { EventSearch } from './events/feed/search.js';
import { intervalTimeoutsJob } from './events/system/interval-timeouts.js';
import { SystemEvents } from './events/system/system-events.js';
import { searchPendingJob } from './events/feed/search-pending.js';

const DAY_MS = 86_400_000;

/**
 * The event domains, wired once: module tokens, evidence storage, intake. They reach the
 * inventory only through its services.
 */
export class EventServices {
  readonly moduleTokens: ModuleTokensService;
  readonly evidence: EvidenceService;
  readonly intake: IntakeService;
  readonly events: EventsService;
  readonly ring: EventRing;
  readonly stream: EventStreamService;
  readonly purge: PurgeService;
  readonly archive: ArchiveService;
  private readonly rights: StreamRights;
  readonly templateCache: TemplateCache;
  readonly templates: TemplatesService;
  private readonly notifier: EventNotifier;
  readonly navigation: NavigationService;
  readonly previews: PreviewService;
  /** The write path of the plane's own events (sweeper, evidence pressure). */
  readonly system: SystemEvents;

  constructor(private readonly db: Db, private readonly clock: Clock, config: PlaneConfig, audit: AuditService, inventory: InventoryServices,
    log: Pick<Logger, 'warn'>, streams: LiveStreams, storage?: EvidenceStorage) {
    this.moduleTokens = new ModuleTokensService(db, clock, inventory.orgs, audit);
    this.evidence = new EvidenceService(db, clock, inventory.orgs, audit, storage ?? new LocalEvidenceStorage(config.evidence.dir));
    const notifier = this.notifier = new EventNotifier(db, log);
    this.templateCache = new TemplateCache(db);
    this.templates = new TemplatesService(db, clock, inventory.orgs, audit, this.templateCache, (org, mask, since) => recentDetectors(db, org, mask, since));
    this.intake = new IntakeService(db, clock, this.moduleTokens, inventory.cameras, this.evidence,
      new IntakeRateLimiter(clock, config.moduleRateLimitDefault), notifier, this.templateCache);
    this.events = new EventsService(db, clock, notifier, new EventSearch(db), (id) => this.templates.byId(id));
    this.navigation = new NavigationService(db, this.events);
    this.previews = new PreviewService(db, audit, this.evidence.storage, new PreviewBuilder(this.evidence.storage, undefined, log));
    this.evidence.onStored = (a) => this.previews.builder.request(a);
    this.ring = new EventRing(db, log);
    notifier.deliverLocally(this.ring);
    this.rights = new StreamRights(db);
    this.stream = new EventStreamService(clock, this.ring, streams, this.rights);
    this.purge = new PurgeService(db, clock, audit, this.evidence, notifier, log);
    // Deleting an organisation that still holds event history queues its archive cleanup.
    this.archive = inventory.orgs.archiver = new ArchiveService(db, clock, this.evidence, this.moduleTokens, inventory.orgs, notifier, log);
    this.system = new SystemEvents(this.templateCache, notifier);
  }

  /** Live frames between processes: the ring follows argus_events, stream rights follow argus_rights. */
  startLive(bus: LiveBus): void {
    this.ring.start(bus);
    this.rights.start(bus);
  }

  /** Daily event partitions from 32 days back (the intake window is 30) to 3 days ahead. */
  async ensurePartitions(): Promise<number> {
    const now = this.clock.now();
    return eventsStore.ensurePartitions(this.db, new Date(now - 32 * DAY_MS), new Date(now + 3 * DAY_MS));
  }

  /** Closes intervals at their template's time-out or the end of their coalescing window. */
  intervalTimeoutsJob(): Job {
    return intervalTimeoutsJob(this.db, this.clock, this.notifier);
  }

  /** Prunes tombstones and removed attachment refs that no reader can still need. */
  pruneJob(): Job {
    return new PurgeRecordsPruner(this.db, this.clock, this.evidence).job();
  }

  /** Keeps the search indexes' pending lists empty (a search reads them whole). */
  searchPendingJob(): Job {
    return searchPendingJob(this.db);
  }

  partitionsJob(): Job {
    return { name: 'events.partitions', everyMs: 3600_000, budgetMs: 30_000, run: async () => { await this.ensurePartitions(); } };
  }
}
