import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { errors } from '../errors.js';
import type { DbHealth } from '../db/health.js';
import { authenticateSession, bearerToken } from '../http/scopes.js';
import type { AuthService } from '../auth/auth.service.js';
import { SECRET_PREFIX, type ModuleTokensService } from './module-tokens.service.js';
import type { ModuleTokenCredential } from './module-tokens.store.js';
import type { PlaneApp } from '../http/typed.js';
import { scopeAnswers, scopeErrors } from '../http/route-errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The module token of an intake-scope request. */
    moduleToken?: ModuleTokenCredential;
  }
  interface FastifyContextConfig {
    /**
     * The route accepts events only through statements that check the token themselves
     * (ModuleTokensService.authenticateCached): its token may come from the process's cache.
     */
    moduleTokenCached?: boolean;
  }
}

/**
 * The intake scope: `Authorization: Bearer <module token secret>`, checked against the database
 * on every request (a rotated, disabled or deleted token is refused at once), by this hook or,
 * on a route marked `moduleTokenCached`, by the statement that accepts the events. A session
 * token is not a module token: 401 unauthorized.
 */
export function requireModuleToken(scope: PlaneApp, tokens: ModuleTokensService, health: DbHealth): void {
  scopeAnswers(scope, scopeErrors.moduleToken);
  scope.addHook('onRequest', async (req) => {
    const secret = bearerToken(req);
    if (!secret) refuse(req, tokens, 'missing');
    if (!health.isUp) throw errors.dbUnavailable();
    const token = req.routeOptions.config?.moduleTokenCached
      ? await tokens.authenticateCached(secret)
      : await tokens.authenticate(secret);
    if (!token) refuse(req, tokens, secret.startsWith(SECRET_PREFIX) ? 'unknown_or_disabled' : 'not_a_module_token');
    req.moduleToken = token;
  });
}

/** 401, written to the plane's log at warn (the route's pattern, not the URL: a query may hold anything). */
function refuse(
  req: FastifyRequest,
  tokens: ModuleTokensService,
  reason: 'missing' | 'not_a_module_token' | 'unknown_or_disabled',
): never {
  tokens.noteRefused(req.log as Logger, req.ip, `${req.method} ${req.routeOptions.url ?? ''}`, reason);
  throw errors.unauthorized();
}

/**
 * A scope open to both credential spaces (PATCH of an event: its organisation's administrator
 * or the module token that created it). A bearer with the module-token prefix is a module
 * token, anything else must be a live session; exactly one of `req.moduleToken` and
 * `req.principal` is set.
 */
export function requireSessionOrModuleToken(
  scope: PlaneApp,
  auth: AuthService,
  tokens: ModuleTokensService,
  health: DbHealth,
): void {
  scopeAnswers(scope, scopeErrors.moduleToken);
  scope.addHook('onRequest', async (req) => {
    const secret = bearerToken(req);
    if (!secret?.startsWith(SECRET_PREFIX)) return authenticateSession(req, auth, health);
    if (!health.isUp) throw errors.dbUnavailable();
    const token = await tokens.authenticate(secret);
    if (!token) refuse(req, tokens, 'unknown_or_disabled');
    req.moduleToken = token;
  });
}

export function moduleTokenOf(req: FastifyRequest): ModuleTokenCredential {
  if (!req.moduleToken) throw new Error('module token missing outside the intake scope');
  return req.moduleToken;
}
