import type { FastifyRequest } from 'fastify';

/**
 * Document 2 (Authentication) and document 3 (rule 1): a session token may come as the query
 * parameter `token` only on `GET /api/v1/events`, for browser event sources that cannot set
 * headers. Everywhere else a `token` parameter is no credential at all.
 */
export const QUERY_TOKEN_ROUTE = '/api/v1/events';

/** The session token of the query, where (and only where) the query may carry one. */
export function queryToken(req: FastifyRequest): string | null {
  if (req.method !== 'GET' || req.routeOptions.url !== QUERY_TOKEN_ROUTE) return null;
  const v = (req.query as Record<string, unknown> | undefined)?.token;
  return typeof v === 'string' && v.length > 0 ? v : null;
}
