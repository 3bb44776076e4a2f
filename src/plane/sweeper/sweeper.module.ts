import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { PlaneConfig } from '../config/config.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { CamerasService } from '../cameras/cameras.service.js';
import type { UsersService } from '../users/users.service.js';
import type { SystemEvents } from '../events/index.js';
import type { EvidenceService } from '../evidence/evidence.service.js';
import type { DomainParts } from '../http/module.js';
import { Sweeper } from './sweeper.service.js';
import { EvidencePressure } from './evidence-pressure.js';
import type { SweepSink } from './sweep-report.js';
import type { NodeClient } from '../nodes/node-client.js';

/**
 * The plane's watchers: the node sweeper and the evidence-storage pressure. With
 * `[sweeper] enabled = false` this process runs neither job (another process may).
 */
export function createSweeper(deps: {
  db: Db;
  clock: Clock;
  config: Pick<PlaneConfig, 'sweeper' | 'evidencePressure'>;
  /** the evidence domain: used_percent of its storage */
  evidence: Pick<EvidenceService, 'usedPercent'>;
  nodes: NodesService;
  cameras: CamerasService;
  users: UsersService;
  system: SystemEvents;
  log: Logger;
  /** where each sweep's report goes (the fleet monitor) */
  sink: SweepSink;
  /** the plane's one client of its nodes (nodes/node-client.ts) */
  nodeClient: NodeClient;
}): DomainParts & { sweeper: Sweeper; pressure: EvidencePressure } {
  const { config } = deps;
  const sweeper = new Sweeper(
    deps.db,
    deps.clock,
    config.sweeper,
    deps.nodes,
    deps.cameras,
    deps.users,
    deps.system,
    deps.log,
    deps.sink,
    deps.nodeClient,
  );
  const pressure = new EvidencePressure(
    deps.db,
    deps.clock,
    config.evidencePressure,
    deps.evidence,
    deps.system,
    deps.users,
  );
  return {
    sweeper,
    pressure,
    routes: {},
    jobs: () => (config.sweeper.enabled ? [sweeper.job(), pressure.job(config.sweeper.intervalMs)] : []),
  };
}
