import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { NodeClient } from '../nodes/node-client.js';
import type { TagsService } from '../tags/tags.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import type { Logger } from 'pino';
import { CamerasService } from './cameras.service.js';
import { Provisioner } from './provisioning.js';
import { ViewingService } from './viewing.service.js';
import { CameraProbe } from './probe.service.js';
import { camerasAdminRoutes, camerasReadRoutes } from './cameras.routes.js';

/** Cameras as records (reads within camera rights, writes for administrators), viewer tokens for their node, the source probe. */
export function createCameras(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  orgs: OrgsService;
  nodes: NodesService;
  tags: TagsService;
  /** where a camera write that did not reach its node is told; the time-out of those writes */
  log: Pick<Logger, 'warn'>;
  nodeTimeoutMs: number;
  /** the plane's one client of its nodes, through which those writes go */
  nodeClient: NodeClient;
}): DomainParts & { cameras: CamerasService; viewing: ViewingService } {
  const provisioner = new Provisioner(deps.nodes, deps.nodeClient, deps.nodeTimeoutMs, deps.log);
  const cameras = new CamerasService(deps.db, deps.clock, deps.audit, deps.orgs, deps.nodes, deps.tags, provisioner);
  const viewing = new ViewingService(deps.db, deps.clock, deps.audit, cameras, deps.nodes);
  const probe = new CameraProbe(deps.nodes, deps.nodeClient);
  return {
    cameras,
    viewing,
    routes: {
      session: (app) => camerasReadRoutes(app, { cameras, viewing }),
      admin: (app) => camerasAdminRoutes(app, { cameras, probe }),
    },
    jobs: noJobs,
  };
}
