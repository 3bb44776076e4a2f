import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { sec, validationCodes } from '../http/list.js';
import type { UsageService } from './usage.service.js';
import { UsageQuery, UsageRow } from './usage.schemas.js';

/** Administrator scope. */
export function usageRoutes(app: PlaneApp, deps: { usage: UsageService }): void {
  app.get(
    '/api/v1/usage',
    {
      schema: {
        tags: ['usage'],
        summary: 'Quota usage of an organisation, from prepared counters (default: own; superadmin: any)',
        // forbidden: another organisation's (an administrator); not_found: no such organisation
        errors: ['forbidden', 'notFound'],
        security: sec,
        querystring: UsageQuery,
        response: { 200: UsageRow },
      },
      config: { validationCode: validationCodes() },
    },
    async (req) => deps.usage.usage(principalOf(req), req.query),
  );
}
