import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { sec, validationCodes } from '../http/list.js';
import { LOG_QUERY_CODES } from '../../common/log-schemas.js';
import type { PlaneLogService } from './logs.service.js';
import { LogPageQuery, PlaneLogPage, PlaneLogStreamQuery } from './logs.schemas.js';

/** Superadmin scope: the control-plane log (document 1). The bare /api/v1/logs stays 501 (service routes). */
export function logsRoutes(app: PlaneApp, deps: { logs: PlaneLogService }): void {
  const config = { validationCode: validationCodes(LOG_QUERY_CODES) };
  app.get(
    '/api/v1/logs/plane',
    {
      schema: {
        errors: [],
        tags: ['logs'],
        summary: 'The control-plane log ring, newest first',
        security: sec,
        querystring: LogPageQuery,
        response: { 200: PlaneLogPage },
      },
      config,
    },
    async (req) => deps.logs.page(req.query),
  );
  app.get(
    '/api/v1/logs/plane/stream',
    {
      schema: {
        errors: ['liveStreamCapacity'],
        tags: ['logs'],
        summary: 'Live tail of the control-plane log (SSE, id = seq)',
        security: sec,
        querystring: PlaneLogStreamQuery,
      },
      config,
    },
    async (req, reply) => {
      deps.logs.stream(req, reply, principalOf(req), req.query);
    },
  );
}
