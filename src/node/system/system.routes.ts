import { Type } from 'typebox';
import type { BuildInfo } from '../../common/build-info.js';
import type { ConfigService } from '../config/config.service.js';
import type { LicenseService } from '../license/license.service.js';
import type { DvrService } from '../media/dvr/dvr.service.js';
import type { NodeFastify } from '../typed.js';
import type { StreamRegistry } from './streams.service.js';
import { CpuSampler, cpuCount, memory, storageReport } from './system.service.js';

const SystemReply = Type.Object({
  version: Type.String(),
  cpus: Type.Integer(),
  proc_cpu_cores: Type.Number(),
  host_cpu_busy_pct: Type.Number(),
  mem_total_mb: Type.Integer(),
  mem_available_mb: Type.Integer(),
  rss_mb: Type.Integer(),
  stream_counts: Type.Object({
    total: Type.Integer(),
    live: Type.Integer(),
    degraded: Type.Integer(),
    failing: Type.Integer(),
  }),
  storages: Type.Array(
    Type.Object({
      name: Type.String(),
      total_bytes: Type.Integer(),
      avail_bytes: Type.Integer(),
      write_iops: Type.Number(),
      identity_healthy: Type.Boolean(),
    }),
  ),
  license: Type.Union([
    Type.Object({ state: Type.Union([Type.Literal('ok'), Type.Literal('grace'), Type.Literal('unlicensed')]) }),
    Type.Null(),
  ]),
});

/** `GET /api/v1/system`: what the plane's sweeper reads every sweep (document 4 section 6). */
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
  app.get('/api/v1/system', { schema: { response: { 200: SystemReply } } }, async () => {
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
