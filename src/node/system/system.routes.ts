import type { BuildInfo } from '../../common/build-info.js';
import { NodeSystemReply } from '../../common/node-api.js';
import type { ConfigService } from '../config/config.service.js';
import type { LicenseService } from '../license/license.service.js';
import type { DvrService } from '../media/dvr/dvr.service.js';
import type { NodeFastify } from '../typed.js';
import type { StreamRegistry } from './streams.service.js';
import { CpuSampler, cpuCount, memory, storageReport } from './system.service.js';

/** `GET /api/v1/system`: what the plane's sweeper reads every sweep (document 4 section 6), shaped by src/common/node-api.ts. */
export interface SystemRoutesDeps {
  build: BuildInfo;
  license: LicenseService;
  config: ConfigService;
  registry: StreamRegistry;
  dvr: DvrService;
}

export function systemRoutes(app: NodeFastify, deps: SystemRoutesDeps): void {
  const { build, license, config, registry, dvr } = deps;
  const cpu = new CpuSampler();
  app.get('/api/v1/system', { schema: { response: { 200: NodeSystemReply } } }, async () => {
    const lic = license.status();
    return {
      version: build.version,
      cpus: cpuCount(),
      ...(await cpu.sample()),
      ...(await memory()),
      stream_counts: registry.counts(),
      storages: await Promise.all(
        config.config.storages.map(async (s) => ({
          ...(await storageReport(s)),
          write_iops: dvr.writeRate(s.name),
        })),
      ),
      license: lic.state === null ? null : { state: lic.state },
    };
  });
}
