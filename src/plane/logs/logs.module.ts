import type { Logger } from 'pino';
import type { LogRing } from '../../common/log-ring.js';
import type { PlaneConfig } from '../config/config.js';
import { noJobs, type DomainParts } from '../http/module.js';
import type { LiveStreams } from '../live/sse.js';
import { PlaneLogService } from './logs.service.js';
import { logsRoutes } from './logs.routes.js';

/** The control-plane log: the ring the plane's logger feeds (plane-logger.ts), its page and live tail. */
export function createLogs(deps: {
  ring: LogRing;
  log: Logger;
  config: PlaneConfig;
  streams: LiveStreams;
}): DomainParts & { logs: PlaneLogService } {
  const logs = new PlaneLogService(deps.ring, deps.log, deps.config, deps.streams);
  return { logs, routes: { superadmin: (app) => logsRoutes(app, { logs }) }, jobs: noJobs };
}
