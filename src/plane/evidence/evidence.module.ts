import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { PlaneConfig } from '../config/config.js';
import type { AuditService } from '../audit/audit.service.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import type { EvidenceStorage } from './evidence.storage.js';
import { EvidenceService } from './evidence.service.js';
import { EvidenceFullness } from './fullness.js';
import { MeteredStorage, RotatingStorage, storageAt } from './storage-operations.js';
import { PreviewBuilder } from './preview.builder.js';
import { PreviewService } from './preview.service.js';
import { evidenceReadRoutes } from './evidence.routes.js';
import { previewRoutes } from './preview.routes.js';
import { SnapshotLinks } from './snapshot-links.js';
import { SnapshotService } from './snapshot.service.js';
import { snapshotRoutes } from './snapshot.routes.js';

/**
 * Evidence attachments (document 2): the storage backend (its operations counted, a read that
 * misses falls back to the storage being retired), how full it is, the attachments' accounting
 * and downloads, and their previews. Built before the event domains, which store attachments at
 * intake, link them to events and delete them with their events; usage, the sweeper and the
 * settings read its figures through `EvidenceService` and `PreviewService`.
 */
export function createEvidence(deps: {
  db: Db;
  clock: Clock;
  config: Pick<PlaneConfig, 'evidence' | 'evidencePressure' | 'publicUrl'>;
  /** the plane's secret key: notification snapshot links are signed with a key derived from it */
  secretKey: Uint8Array;
  orgs: OrgsService;
  audit: AuditService;
  log: Pick<Logger, 'warn'>;
  /** the storage backend; absent: the one the configuration names */
  storage?: EvidenceStorage;
}): DomainParts & { evidence: EvidenceService; previews: PreviewService; snapshots: SnapshotService } {
  const { db, clock, config } = deps;
  const storage = new MeteredStorage(
    new RotatingStorage(
      deps.storage ?? storageAt(config.evidence),
      config.evidence.retired ? storageAt(config.evidence.retired) : null,
    ),
    clock,
  );
  const builder = new PreviewBuilder(storage, undefined, deps.log);
  const fullness = new EvidenceFullness(db, clock, {
    maxBytes: config.evidencePressure.maxBytes,
    criticalPercent: config.evidencePressure.criticalPercent,
    dir: config.evidence.dir,
  });
  // A stored attachment queues its preview.
  const evidence = new EvidenceService(db, clock, deps.orgs, deps.audit, storage, fullness, (a) => builder.request(a));
  const previews = new PreviewService(db, deps.audit, storage, builder);
  const snapshots = new SnapshotService(
    db,
    clock,
    deps.audit,
    storage,
    new SnapshotLinks(deps.secretKey, config.publicUrl),
  );
  return {
    evidence,
    previews,
    snapshots,
    routes: {
      /** a notification's snapshot link is its own right: no session (the database is needed) */
      database(app) {
        snapshotRoutes(app, { evidence, snapshots });
      },
      /** any signed-in user, narrowed by camera rights */
      session(app) {
        evidenceReadRoutes(app, { evidence });
        previewRoutes(app, { evidence, previews });
      },
    },
    jobs: noJobs,
  };
}
