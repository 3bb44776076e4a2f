import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { NodeClient } from '../nodes/node-client.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { NodeOpsService } from './node-ops.service.js';
import { nodeOpsRoutes } from './node-ops.routes.js';
import { NODE_OPS_TIMEOUT_MS } from './route-error.js';

/** The per-node routes of document 4 §9 (superadmin): requests forwarded to one node with its write token. */
export function createNodeOps(deps: {
  db: Db;
  audit: AuditService;
  nodes: NodesService;
  /** the plane's one client of its nodes */
  nodeClient: NodeClient;
  timeoutMs?: number;
}): DomainParts & { nodeOps: NodeOpsService } {
  const nodeOps = new NodeOpsService(
    deps.db,
    deps.audit,
    deps.nodes,
    deps.nodeClient,
    deps.timeoutMs ?? NODE_OPS_TIMEOUT_MS,
  );
  return { nodeOps, routes: { superadmin: (app) => nodeOpsRoutes(app, { ops: nodeOps }) }, jobs: noJobs };
}
