import { Type } from 'typebox';
import type { NodeContext, NodeFastify } from '../context.js';
import { CpuSampler, cpuCount, memory, storageReport } from './system.service.js';

const SystemReply = Type.Object({
  version: Type.String(),
  cpus: Type.Integer(),
  proc_cpu_cores: Type.Number(),
  host_cpu_busy_pct: Type.Number(),
  mem_total_mb: Type.Integer(),
  mem_available_mb: Type.Integer(),
  rss_mb: Type.Integer(),
  stream_counts: Type.Object({ total: Type.Integer(), live: Type.Integer(), degraded: Type.Integer(), failing: Type.Integer() }),
  storages: Type.Array(Type.Object({
    name: Type.String(), total_bytes: Type.Integer(), avail_bytes: Type.Integer(), write_iops: Type.Number(), identity_healthy: Type.Boolean(),
  })),
  license: Type.Union([Type.Object({ state: Type.Union([Type.Literal('ok'), Type.Literal('grace'), Type.Literal('unlicensed')]) }), Type.Null()]),
});

/** `GET /api/v1/system`: what the plane's sweeper reads every sweep (document 4 section 6). */
export function systemRoutes(app: NodeFastify, ctx: NodeContext): void {
  const cpu = new CpuSampler();
  app.get('/api/v1/system', { schema: { response: { 200: SystemReply } } }, async () => {
    const lic = ctx.license.status();
    return {
      version: ctx.build.version,
      cpus: cpuCount(),
      ...cpu.sample(),
      ...(await memory()),
      stream_counts: ctx.streams.counts(),
      storages: await Promise.all(ctx.config.config.storages.map(async (s) => ({
        ...(await storageReport(s)),
        write_iops: ctx.media.dvr.writeRate(s.name),
      }))),
      license: lic.state === null ? null : { state: lic.state },
    };
  });
}
