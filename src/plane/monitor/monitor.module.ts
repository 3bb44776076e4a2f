import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { PoolStats } from '../db/drivers.js';
import type { LiveStreams } from '../live/sse.js';
import type { CamerasService } from '../cameras/cameras.service.js';
import type { DomainParts } from '../http/module.js';
import { FleetMonitor } from './fleet.service.js';
import { ProcessSampler } from './process-sampler.js';
import type { HostReadings } from '../../common/host-load.js';
import { MonitorService } from './monitor.service.js';
import { monitorRoutes } from './monitor.routes.js';
import { StreamFiguresService } from './stream-figures.service.js';
import { streamFiguresRoutes } from './stream-figures.routes.js';

/**
 * Fleet and process telemetry (document 1; document 4 §9): `fleet` is the sweeper's sink and
 * holds the summary and node frames every plane process serves; `sampler` samples this process.
 * `fleet.start(bus)` and `fleet.load()` (start-up) keep a process that does not sweep current.
 * `figures` answers each camera's ingest figures of the latest sweep to whoever may see the camera.
 */
export function createMonitor(deps: {
  db: Db;
  clock: Clock;
  streams: LiveStreams;
  cameras: Pick<CamerasService, 'statusCounts' | 'visibleCameras'>;
  poolStats: () => PoolStats;
  log: Logger;
  host?: HostReadings;
}): DomainParts & { fleet: FleetMonitor; sampler: ProcessSampler; monitor: MonitorService } {
  const fleet = new FleetMonitor(deps.db, () => deps.cameras.statusCounts(), deps.log);
  const sampler = new ProcessSampler(deps.clock, deps.poolStats, deps.host);
  const monitor = new MonitorService(fleet, sampler, deps.streams);
  const figures = new StreamFiguresService(deps.db, deps.cameras);
  return {
    fleet,
    sampler,
    monitor,
    routes: {
      superadmin: (app) => monitorRoutes(app, { monitor }),
      session: (app) => streamFiguresRoutes(app, { figures }),
    },
    jobs: () => [sampler.job()],
  };
}
