import type { FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { DbHealth } from '../db/health.js';
import { authenticateSession, bearerToken } from '../http/scopes.js';
import type { AuthService } from '../auth/auth.service.js';
import { SECRET_PREFIX, type ModuleTokensService } from './module-tokens.service.js';
import type { ModuleTokenCredential } from './module-tokens.store.js';
import type { PlaneApp } from '../http/typed.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The module token of an intake-scope request. */
    moduleToken?: ModuleTokenCredential;
  }
}

/**
 * The intake scope: `Authorization: Bearer <module token secret>`, checked against the database
 * on every request (a rotated, disabled or deleted token is refused at once). A session token
 * is not a module token: 401 unauthorized.
 */
export function requireModuleToken(scope: PlaneApp, tokens: ModuleTokensService, health: DbHealth): void {
  scope.addHook('onRequest', async (req) => {
    const secret = bearerToken(req);
    if (!secret) throw errors.unauthorized();
    if (!health.isUp) throw errors.dbUnavailable();
    const token = await tokens.authenticate(secret);
    if (!token) throw errors.unauthorized();
    req.moduleToken = token;
  });
}

/**
 * A scope open to both credential spaces (PATCH of an event: its organisation's administrator
 * or the module token that created it). A bearer with the module-token prefix is a module
 * token, anything else must be a live session; exactly one of `req.moduleToken` and
 * `req.principal` is set.
 */
export function requireSessionOrModuleToken(scope: PlaneApp, auth: AuthService, tokens: ModuleTokensService, health: DbHealth): void {
  scope.addHook('onRequest', async (req) => {
    const secret = bearerToken(req);
    if (!secret?.startsWith(SECRET_PREFIX)) return authenticateSession(req, auth, health);
    if (!health.isUp) throw errors.dbUnavailable();
    const token = await tokens.authenticate(secret);
    if (!token) throw errors.unauthorized();
    req.moduleToken = token;
  });
}

export function moduleTokenOf(req: FastifyRequest): ModuleTokenCredential {
  if (!req.moduleToken) throw new Error('module token missing outside the intake scope');
  return req.moduleToken;
}
