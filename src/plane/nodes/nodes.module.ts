import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { NodesService } from './nodes.service.js';
import { nodesRoutes } from './nodes.routes.js';

/** Streaming nodes as records (superadmin); their secrets sealed with the plane's key. */
export function createNodes(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  box: SecretBox;
  allowPrivateTargets?: boolean;
}): DomainParts & { nodes: NodesService } {
  const nodes = new NodesService(deps.db, deps.clock, deps.audit, deps.box, deps.allowPrivateTargets ?? false);
  return { nodes, routes: { superadmin: (app) => nodesRoutes(app, { nodes }) }, jobs: noJobs };
}
