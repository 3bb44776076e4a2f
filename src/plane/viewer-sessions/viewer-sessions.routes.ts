import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { sec, validationCodes } from '../http/list.js';
import type { ViewerSessionsService } from './viewer-sessions.service.js';
import { sessionsPageJson } from './page-json.js';
import { SessionsCodes, SessionsPage, SessionsQuery } from './viewer-sessions.schemas.js';

/** Administrator scope: GET /api/v1/sessions, the fleet-wide list of live viewers of the caller's cameras. */
export function viewerSessionsRoutes(app: PlaneApp, deps: { sessions: ViewerSessionsService }): void {
  app.get(
    '/api/v1/sessions',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Live viewers of the cameras the caller may see, from at most 4 nodes per request (2 s each)',
        errors: ['query_too_long', 'bad_cursor', 'bad_limit', 'notFound', 'urlBuildFailed'],
        security: sec,
        querystring: SessionsQuery,
        response: { 200: SessionsPage },
      },
      config: { validationCode: validationCodes(SessionsCodes) },
    },
    async (req, reply) => {
      // The page's text from parts made once per node answer (page-json.ts), not the schema's serialiser.
      const page = await deps.sessions.list(principalOf(req), req.query);
      return reply.type('application/json; charset=utf-8').serializer(sessionsPageJson).send(page);
    },
  );
}
