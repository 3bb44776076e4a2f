import { ApiError } from '../../common/api-error.js';
import { bearerOf } from '../../common/bearer.js';
import type { ConfigService } from '../config/config.service.js';
import { errors } from '../errors.js';
import type { Gate } from '../gate/gate.service.js';
import { EVENTS_PATH, gateRule, isGated } from '../gate/levels.js';
import { STREAM_PATH } from '../grants/grants.service.js';
import type { Access } from '../gate/request-access.js';
import type { LicenseService } from '../license/license.service.js';
import type { NodeMetrics } from '../metrics/metrics.service.js';
import type { MediaKind, ViewerAccess } from '../media/viewer/viewer.service.js';

/**
 * A request as the authorizer sees it: the surface, the action, the path and the credentials it
 * carries. The management surface is `/api/v1/*` and `/metrics` (everything else outside the media
 * routes is public); the media surface is every media file route, whose action is its media kind.
 */
export type AccessRequest =
  | {
      surface: 'management';
      method: string;
      /** The matched route pattern, when a route matched: percent-encoding cannot dodge the rule. */
      route: string | undefined;
      /** The request URL as sent (path and query). */
      url: string;
      address: string;
      authorization: string | undefined;
      /** `?token=`: counts only on GET of the events feed (EventSource cannot set headers). */
      queryToken: string | undefined;
    }
  | {
      surface: 'media';
      action: MediaKind;
      stream: string;
      address: string;
      /** `?token=`: a viewer token or a media grant. */
      token: string | undefined;
      /** `?t=`: a session ticket. */
      ticket: string | undefined;
    };

export type { Access };

/** Only what the authorizer asks of each service. */
export interface AuthorizerDeps {
  gate: Pick<Gate, 'identify'>;
  license: Pick<LicenseService, 'mediaRefusal'>;
  config: Pick<ConfigService, 'hasStream' | 'config'>;
  viewers: Pick<ViewerAccess, 'admit'>;
  metrics: Pick<NodeMetrics, 'gateDecision'>;
}

/** A stream path in a media URL: what a media grant may name (document 3), at most 256 characters. */
export function isStreamPath(stream: string): boolean {
  return stream.length <= 256 && STREAM_PATH.test(stream);
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * The node's one authorizer: every surface asks it, with the request's action, path and
 * credentials, and gets who is asking or the refusal to answer with. Management: the token-level
 * gate table of document 3. Media, in this order: a path that is not a stream (404), the licence
 * (403 with its message), an unknown stream (404), viewer admission (403).
 */
export class Authorizer {
  constructor(private readonly deps: AuthorizerDeps) {}

  async authorize(req: AccessRequest): Promise<Access | ApiError> {
    return req.surface === 'media' ? this.media(req) : this.management(req);
  }

  private async management(req: Extract<AccessRequest, { surface: 'management' }>): Promise<Access | ApiError> {
    const raw = pathOf(req.url);
    const target = req.route ?? raw;
    if (!isGated(target) && !isGated(raw)) return { kind: 'public' };
    const { gate, metrics } = this.deps;
    const bearer = bearerOf(req.authorization) ?? undefined;
    const principal =
      bearer === undefined && target === EVENTS_PATH && req.method === 'GET'
        ? await gate.identify(req.queryToken, req.address, false)
        : await gate.identify(bearer, req.address);
    const refusal = gateRule(principal, req.method, target);
    metrics.gateDecision(refusal ? String(refusal.status) : 'allowed');
    if (refusal) return refusal;
    // The table refuses every request without a principal, so there is one here.
    return principal ? { kind: 'management', principal } : errors.unauthorized();
  }

  private async media(req: Extract<AccessRequest, { surface: 'media' }>): Promise<Access | ApiError> {
    const { license, config, viewers } = this.deps;
    if (!isStreamPath(req.stream)) return errors.notFound();
    // The licence comes first: a node whose licence does not cover it serves nobody, whatever the token.
    const refusal = license.mediaRefusal();
    if (refusal) return refusal;
    if (!config.hasStream(req.stream) && !req.stream.startsWith('vod/')) return errors.streamNotFound(req.stream);
    // A credential in the URL opens a new session even when a ticket rides along.
    const ticket = req.token === undefined ? req.ticket : undefined;
    try {
      const claims = await viewers.admit(config.config.auth_backend, {
        stream: req.stream,
        kind: req.action,
        address: req.address,
        token: req.token,
        ticket,
      });
      return { kind: 'viewer', claims, ticket };
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
  }
}
