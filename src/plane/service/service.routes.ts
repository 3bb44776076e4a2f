import type { PlaneApp } from '../http/typed.js';
import { Type } from 'typebox';
import { BUILD } from '../../common/build-info.js';
import { errors } from '../errors.js';
import type { DbHealth } from '../db/health.js';
import type { ReadRoute } from '../db/database.types.js';
import type { AuthService } from '../auth/auth.service.js';
import { bearerToken } from '../http/scopes.js';

/** The paths document 1 lists as not implemented; every method on them answers 501. */
export const NOT_IMPLEMENTED_PATHS = [
  '/api/v1/config',
  '/api/v1/config/globals',
  '/api/v1/config/logging',
  '/api/v1/license',
  '/api/v1/logs',
];

const ErrorBody = Type.Object({ error: Type.String() }, { additionalProperties: true });

export const VersionBody = Type.Object({
  version: Type.String(),
  git: Type.String(),
  git_sha: Type.String(),
  dirty: Type.Boolean(),
  profile: Type.String(),
  opt_level: Type.String(),
  debug: Type.Boolean(),
  target: Type.String(),
  features: Type.Array(Type.String()),
});

/** `replicas`: where reads that may lag go; listed only when `[database] read_url` names replicas. */
export function publicServiceRoutes(
  app: PlaneApp,
  deps: { health: DbHealth; replicas: Pick<ReadRoute, 'replicated' | 'status'> },
): void {
  app.get(
    '/health',
    {
      schema: {
        errors: [],
        tags: ['service'],
        summary: 'Public liveness probe; also says whether the database answers',
        response: {
          200: Type.Object({
            status: Type.Literal('ok'),
            database: Type.Union([Type.Literal('up'), Type.Literal('down')]),
            // Document 4, section 15: present only when [database] read_url is set.
            replicas: Type.Optional(
              Type.Array(
                Type.Object({
                  host: Type.String(),
                  lag_secs: Type.Union([Type.Number(), Type.Null()]),
                  used: Type.Boolean(),
                }),
              ),
            ),
          }),
        },
      },
    },
    async () => ({
      status: 'ok' as const,
      database: deps.health.isUp ? ('up' as const) : ('down' as const),
      ...(deps.replicas.replicated ? { replicas: deps.replicas.status() } : {}),
    }),
  );

  for (const url of NOT_IMPLEMENTED_PATHS) {
    app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url,
      schema: {
        tags: ['service'],
        summary: 'Not implemented on the control plane (document 1)',
        errors: ['notImplemented'],
        response: { 501: ErrorBody },
      },
      handler: async () => {
        throw errors.notImplemented();
      },
    });
  }
}

/** GET /api/v1/version: signed-in callers only, yet no database access (document 1). */
export function versionRoute(app: PlaneApp, deps: { auth: AuthService }): void {
  // The documented body: the build info without build_date (a node-licence concern).
  const { build_date: _date, ...body } = BUILD;
  app.get(
    '/api/v1/version',
    {
      schema: {
        errors: ['unauthorized'],
        tags: ['service'],
        summary: 'Running build',
        security: [{ bearer: [] }],
        response: { 200: VersionBody },
      },
      onRequest: async (req) => {
        const token = bearerToken(req);
        if (!token) throw errors.unauthorized();
        await deps.auth.verifySignedIn(token, { ip: req.ip });
      },
    },
    async () => body,
  );
}
