import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/api-error.js';
import type { ClientAddressResolver } from '../gate/client-address.js';
import { recordAccess, type AccessResult } from '../gate/request-access.js';
import type { MediaKind } from '../media/viewer/viewer.service.js';
import type { NodeFastify } from '../typed.js';
import type { Authorizer } from './authorize.js';

export { clientAddressOf, principalOf, viewerOf } from '../gate/request-access.js';

/** Route config of a media file route: the action the authorizer judges it as. */
export interface MediaRouteConfig {
  media: MediaKind;
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
    recordAccess(req, result);
    const media = (req.routeOptions.config as Partial<MediaRouteConfig> | undefined)?.media;
    const params = req.params as { stream?: string } | undefined;
    const outcome =
      media !== undefined
        ? await deps.access.authorize({
            surface: 'media',
            action: media,
            stream: params?.stream ?? '',
            address,
            token: queryString(req, 'token'),
            ticket: queryString(req, 't'),
          })
        : await deps.access.authorize({
            surface: 'management',
            method: req.method,
            route: req.routeOptions.url,
            url: req.url,
            address,
            authorization: req.headers.authorization,
            queryToken: nonEmpty(queryString(req, 'token')),
          });
    if (outcome instanceof ApiError) throw outcome;
    result.access = outcome;
  });
}

function nonEmpty(s: string | undefined): string | undefined {
  return s !== undefined && s.length > 0 ? s : undefined;
}
