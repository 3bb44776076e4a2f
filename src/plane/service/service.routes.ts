import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errors } from '../errors.js';
import type { DbHealth } from '../db/health.js';
import type { AuthService } from '../auth/auth.service.js';
import { bearerToken } from '../http/scopes.js';

/** The paths document 1 lists as not implemented; every method on them answers 501. */
export const NOT_IMPLEMENTED_PATHS = ['/api/v1/config', '/api/v1/config/globals', '/api/v1/config/logging', '/api/v1/license', '/api/v1/logs'];

const ErrorBody = Type.Object({ error: Type.String() }, { additionalProperties: true });

export const VersionBody = Type.Object({
  version: Type.String(), git: Type.String(), git_sha: Type.String(), dirty: Type.Boolean(), profile: Type.String(),
  opt_level: Type.String(), debug: Type.Boolean(), target: Type.String(), features: Type.Array(Type.String()),
});

export function buildInfo(): Record<string, unknown> {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const f = join(dir, 'src', 'build-info.json');
    if (existsSync(f)) return JSON.parse(readFileSync(f, 'utf8'));
    dir = dirname(dir);
  }
  return { version: '0.0.0', git: 'unknown', git_sha: 'unknown', dirty: false, profile: 'dev', opt_level: 'none', debug: true, target: process.platform, features: [] };
}

export function publicServiceRoutes(app: FastifyInstance, deps: { health: DbHealth }): void {
  app.get('/health', {
    schema: {
      tags: ['service'], summary: 'Public liveness probe; also says whether the database answers',
      response: { 200: Type.Object({ status: Type.Literal('ok'), database: Type.Union([Type.Literal('up'), Type.Literal('down')]) }) },
    },
  }, async () => ({ status: 'ok' as const, database: deps.health.isUp ? 'up' as const : 'down' as const }));

  for (const url of NOT_IMPLEMENTED_PATHS) {
    app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url,
      schema: { tags: ['service'], summary: 'Not implemented on the control plane (document 1)', response: { 501: ErrorBody } },
      handler: async () => { throw errors.notImplemented(); },
    });
  }
}

/** GET /api/v1/version: signed-in callers only, yet no database access (document 1). */
export function versionRoute(app: FastifyInstance, deps: { auth: AuthService }): void {
  const info = buildInfo();
  const body = {
    version: String(info.version), git: String(info.git), git_sha: String(info.git_sha), dirty: Boolean(info.dirty),
    profile: String(info.profile), opt_level: String(info.opt_level), debug: Boolean(info.debug),
    target: String(info.target), features: (info.features as string[]) ?? [],
  };
  app.get('/api/v1/version', {
    schema: { tags: ['service'], summary: 'Running build', security: [{ bearer: [] }], response: { 200: VersionBody } },
    onRequest: async (req) => {
      const token = bearerToken(req);
      if (!token) throw errors.unauthorized();
      await deps.auth.verifySignedIn(token);
    },
  }, async () => body);
}
