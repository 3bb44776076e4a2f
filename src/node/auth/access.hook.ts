import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/api-error.js';
import type { ClientAddressResolver } from '../gate/client-address.js';
import type { Principal } from '../gate/levels.js';
import type { TicketClaims } from '../grants/session-keys.js';
import type { MediaKind } from '../media/viewer/viewer.service.js';
import type { NodeFastify } from '../typed.js';
import type { Access, Authorizer } from './authorize.js';

/**
 * Per-request access results. Kept in a WeakMap rather than a `declare module 'fastify'`
 * augmentation: augmentations are global to the compilation and the plane, built in the same
 * tree, declares its own `principal` on the same interface.
 */
interface AccessResult {
  access: Access | null;
  address: string;
}
const results = new WeakMap<FastifyRequest, AccessResult>();

/** Route config of a media file route: the action the authorizer judges it as. */
export interface MediaRouteConfig {
  media: MediaKind;
}

/** The management principal of the request; null on public paths. */
export function principalOf(req: FastifyRequest): Principal | null {
  const a = results.get(req)?.access;
  return a?.kind === 'management' ? a.principal : null;
}

/** The admitted viewer of a media request: its ticket claims (null when media is open) and the ticket it presented. */
export function viewerOf(req: FastifyRequest): { claims: TicketClaims | null; ticket: string | undefined } {
  const a = results.get(req)?.access;
  return a?.kind === 'viewer' ? { claims: a.claims, ticket: a.ticket } : { claims: null, ticket: undefined };
}

export function clientAddressOf(req: FastifyRequest): string {
  return results.get(req)?.address ?? req.socket.remoteAddress ?? '';
}

function queryString(req: FastifyRequest, name: string): string | undefined {
  const v = (req.query as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : undefined;
}

export interface AccessHookDeps {
  addresses: ClientAddressResolver;
  access: Authorizer;
}

/**
 * One hook in front of every route asks the authorizer: the management gate on `/api/v1/*` and
 * `/metrics`, and viewer admission on the media file routes (their route config names the action).
 * The rule is taken on the matched route pattern when there is one, so percent-encoding or a
 * forwarding route cannot reach the configuration text past the read-token rule.
 */
export function registerAccess(app: NodeFastify, deps: AccessHookDeps): void {
  app.addHook('onRequest', async (req) => {
    const address = deps.addresses.resolve(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    const result: AccessResult = { access: null, address };
    results.set(req, result);
    const media = (req.routeOptions.config as Partial<MediaRouteConfig> | undefined)?.media;
    const params = req.params as { stream?: string } | undefined;
    const outcome = media !== undefined
      ? await deps.access.authorize({
        surface: 'media', action: media, stream: params?.stream ?? '', address,
        token: queryString(req, 'token'), ticket: queryString(req, 't'),
      })
      : await deps.access.authorize({
        surface: 'management', method: req.method, route: req.routeOptions.url, url: req.url, address,
        authorization: req.headers.authorization, queryToken: nonEmpty(queryString(req, 'token')),
      });
    if (outcome instanceof ApiError) throw outcome;
    result.access = outcome;
  });
}

function nonEmpty(s: string | undefined): string | undefined {
  return s !== undefined && s.length > 0 ? s : undefined;
}
