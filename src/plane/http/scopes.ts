import type { FastifyRequest } from 'fastify';
import { bearerOf } from '../../common/bearer.js';
import { errors } from '../errors.js';
import type { DbHealth } from '../db/health.js';
import { atLeast, type Principal, type Role } from './principal.js';
import { queryToken } from './query-token.js';
import type { PlaneApp } from './typed.js';
import { scopeAnswers, scopeErrors } from './route-errors.js';

/** The `Authorization: Bearer` credential of a request (one parser for plane and node: src/common/bearer.ts). */
export function bearerToken(req: FastifyRequest): string | null {
  return bearerOf(req.headers.authorization);
}

export function clientOf(req: FastifyRequest): { ip: string; userAgent: string } {
  const ua = req.headers['user-agent'];
  return { ip: req.ip, userAgent: typeof ua === 'string' ? ua : '' };
}

/** Routes that need the database answer 503 at once while it is away. */
export function requireDatabase(scope: PlaneApp, health: DbHealth): void {
  scopeAnswers(scope, scopeErrors.database);
  scope.addHook('onRequest', async () => {
    if (!health.isUp) throw errors.dbUnavailable();
  });
}

/**
 * What a session check asks of auth (its AuthService). Declared here because http lies below the
 * auth domain, which builds its routes on these scopes.
 */
export interface SessionAuthenticator<Claims = unknown> {
  /** `from`: where a refused token came from, for the plane's log (issue 25, item 16). */
  verifyToken(token: string, from?: { ip: string }): Promise<Claims>;
  authenticate(token: string, from: { ip: string; userAgent: string }, verified?: Claims): Promise<Principal>;
}

/**
 * Sets `req.principal` from the session bearer token: 401 without a live session. The header
 * wins; only the feed also takes the token from its query (query-token.ts).
 */
export async function authenticateSession(
  req: FastifyRequest,
  auth: SessionAuthenticator,
  health: DbHealth,
): Promise<void> {
  const token = bearerToken(req) ?? queryToken(req);
  if (!token) throw errors.unauthorized();
  const claims = await auth.verifyToken(token, clientOf(req));
  if (!health.isUp) throw errors.dbUnavailable();
  req.principal = await auth.authenticate(token, clientOf(req), claims);
}

/** The authenticated scope: a live session in the database, checked on every request. */
export function requireSession(scope: PlaneApp, auth: SessionAuthenticator, health: DbHealth): void {
  scopeAnswers(scope, scopeErrors.session);
  scope.addHook('onRequest', (req) => authenticateSession(req, auth, health));
}

/** A role gate inside the authenticated scope. */
export function requireRole(scope: PlaneApp, min: Role): void {
  scopeAnswers(scope, scopeErrors.role);
  scope.addHook('onRequest', async (req) => {
    if (!req.principal || !atLeast(req.principal.role, min)) throw errors.forbidden();
  });
}
