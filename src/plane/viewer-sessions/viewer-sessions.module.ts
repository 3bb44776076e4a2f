import type { Clock } from '../../common/clock.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { NodeClient } from '../nodes/node-client.js';
import type { CamerasService } from '../cameras/cameras.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import {
  SESSIONS_NODE_TIMEOUT_MS,
  SESSIONS_REPLY_FRESH_MS,
  SESSIONS_NODES_PER_REQUEST,
  ViewerSessionsService,
} from './viewer-sessions.service.js';
import { viewerSessionsRoutes } from './viewer-sessions.routes.js';

/** Fleet-wide viewer sessions (administrator): asked of the nodes, re-checked against the camera inventory. */
export function createViewerSessions(deps: {
  clock: Clock;
  nodes: NodesService;
  cameras: CamerasService;
  /** the plane's one client of its nodes */
  nodeClient: NodeClient;
  timeoutMs?: number;
}): DomainParts & { viewerSessions: ViewerSessionsService } {
  const viewerSessions = new ViewerSessionsService(deps.clock, deps.nodes, deps.cameras, deps.nodeClient, {
    nodesPerRequest: SESSIONS_NODES_PER_REQUEST,
    timeoutMs: deps.timeoutMs ?? SESSIONS_NODE_TIMEOUT_MS,
    freshMs: SESSIONS_REPLY_FRESH_MS,
  });
  return {
    viewerSessions,
    routes: { admin: (app) => viewerSessionsRoutes(app, { sessions: viewerSessions }) },
    jobs: noJobs,
  };
}
