import { Type } from 'typebox';
import type { NodeFastify } from '../typed.js';
import type { MetricsReport } from './report.service.js';

export interface MetricsRoutesDeps {
  report: MetricsReport;
}

export function metricsRoutes(app: NodeFastify, deps: MetricsRoutesDeps): void {
  const { report } = deps;
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8');
    return report.exposition();
  });

  app.get('/api/v1/metrics', { schema: { response: { 200: Type.Record(Type.String(), Type.Unknown()) } } }, async () =>
    report.dump(),
  );
}
