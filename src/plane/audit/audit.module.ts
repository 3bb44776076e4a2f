import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { LiveStreams } from '../live/sse.js';
import type { DomainParts } from '../http/module.js';
import { AuditRing } from './audit.ring.js';
import { AuditService } from './audit.service.js';
import { auditRoutes } from './audit.routes.js';

/** The audit trail: the ring of recent frames (live feed) and the service every writer records through. */
export function createAudit(deps: {
  db: Db;
  /** audit pages' reads (ReadRoute.db): they may lag */
  readDb: Db;
  clock: Clock;
  ringSize: number;
  streams: LiveStreams;
  log: Logger;
}): DomainParts & { ring: AuditRing; audit: AuditService } {
  const ring = new AuditRing(deps.db, deps.ringSize, deps.log);
  const audit = new AuditService(deps.db, deps.clock, ring, deps.streams, deps.readDb);
  return {
    ring,
    audit,
    // Its own plugin: the role gate of auditRoutes (an onRequest hook) stays with the audit routes.
    routes: {
      session: (app) => {
        app.register(async (s) => auditRoutes(s, { audit }));
      },
    },
    jobs: () => [audit.partitionsJob()],
  };
}
