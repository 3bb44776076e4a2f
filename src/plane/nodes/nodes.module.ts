import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { NodesService } from './nodes.service.js';
import { nodesRoutes } from './nodes.routes.js';
import { NodeClient } from './node-client.js';

/**
 * Streaming nodes as records (superadmin); their secrets sealed with the plane's key. And the
 * plane's one client of its nodes (`nodeClient`), built here once and handed to every domain
 * that calls a node (cameras, sweeper, node-ops, viewer-sessions).
 */
export function createNodes(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  box: SecretBox;
  allowPrivateTargets?: boolean;
}): DomainParts & { nodes: NodesService; nodeClient: NodeClient } {
  const nodes = new NodesService(deps.db, deps.clock, deps.audit, deps.box, deps.allowPrivateTargets ?? false);
  return {
    nodes,
    nodeClient: new NodeClient(),
    routes: { superadmin: (app) => nodesRoutes(app, { nodes }) },
    jobs: noJobs,
  };
}
