import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import { resolveInside } from '../../common/resolve-inside.js';
import type { PlaneConfig } from '../config/config.js';
import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CamerasService } from '../cameras/cameras.service.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { NodeClient } from '../nodes/node-client.js';
import type { PreferencesService } from '../preferences/preferences.service.js';
import { readPlaneToml, at } from '../settings/plane-toml.js';
import type { DomainParts } from '../http/module.js';
import { ExportKey } from './export-key.js';
import { ExportsService } from './exports.service.js';
import { exportsRoutes } from './exports.routes.js';
import { exportTempJob } from './export-temp.js';

/** The node makes the file before its first byte; its ffmpeg is stopped after 120 s, so this waits a little longer. */
const NODE_EXPORT_TIMEOUT_MS = 130_000;

/**
 * Verifiable exports (document 4 §14, docs/exports.md): after cameras, nodes and preferences,
 * whose services it asks. The export key lives in the data folder, made on first use.
 */
export function createExports(deps: {
  db: Db;
  clock: Clock;
  config: PlaneConfig;
  audit: AuditService;
  cameras: CamerasService;
  nodes: NodesService;
  nodeClient: NodeClient;
  /** the preferences domain (its service's user zone names the file) */
  preferencesDomain: { preferences: Pick<PreferencesService, 'get'> };
  log: Logger;
}): DomainParts & { exports: ExportsService } {
  const { config } = deps;
  // The settings page edits dvr_export_max_secs in plane.toml and it applies at once: read it per export.
  const maxSecs = async (): Promise<number> => {
    if (!config.configFile) return config.dvrExportMaxSecs;
    const v = await readPlaneToml(config.configFile)
      .then((f) => at(f.doc, 'dvr_export_max_secs'))
      .catch(() => undefined);
    return typeof v === 'number' && Number.isInteger(v) && v >= 60 && v <= 86_400 ? v : config.dvrExportMaxSecs;
  };
  const tempDir = resolveInside(config.dataDir, 'temp');
  const exports = new ExportsService({
    db: deps.db,
    clock: deps.clock,
    audit: deps.audit,
    cameras: deps.cameras,
    nodes: deps.nodes,
    nodeClient: deps.nodeClient,
    userZone: async (p) => (await deps.preferencesDomain.preferences.get(p)).timezone,
    key: new ExportKey(config.dataDir),
    maxSecs,
    tempDir,
    nodeTimeoutMs: NODE_EXPORT_TIMEOUT_MS,
    log: deps.log.child({ part: 'exports' }),
  });
  return {
    exports,
    routes: { session: (app) => exportsRoutes(app, { exports, idleTimeoutMs: config.http.idleTimeoutMs }) },
    jobs: () => [exportTempJob(tempDir, deps.clock)],
  };
}
