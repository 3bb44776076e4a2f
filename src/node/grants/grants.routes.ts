import { Type } from 'typebox';
import type { Logger } from 'pino';
import { clientAddressOf, principalOf } from '../gate/request-access.js';
import type { ConfigService } from '../config/config.service.js';
import { errors } from '../errors.js';
import { AUTH_BODY_LIMIT } from '../gate/auth.routes.js';
import type { Gate } from '../gate/gate.service.js';
import { MEDIA_GRANTS_PATH } from '../gate/levels.js';
import type { NodeMetrics } from '../metrics/metrics.service.js';
import type { NodeFastify } from '../typed.js';
import { INTENTS, grantProblem, type MediaGrants } from './grants.service.js';
import type { SessionKeyRing } from './session-keys.js';

const GrantBody = Type.Object(
  {
    stream: Type.String({ minLength: 1, maxLength: 256 }),
    intent: Type.Union(INTENTS.map((i) => Type.Literal(i))),
    protocols: Type.Array(Type.String({ maxLength: 32 }), { minItems: 1, maxItems: 8, uniqueItems: true }),
  },
  { additionalProperties: false },
);

const MediaGrantReply = Type.Object({
  token: Type.String(),
  expires_at: Type.Integer(),
  server_time: Type.Integer(),
  ttl_secs: Type.Integer(),
  session_expires_at: Type.Integer(),
});

export interface GrantsRoutesDeps {
  gate: Gate;
  config: ConfigService;
  grants: MediaGrants;
  sessionKeys: SessionKeyRing;
  metrics: NodeMetrics;
  log: Logger;
}

export function grantsRoutes(app: NodeFastify, deps: GrantsRoutesDeps): void {
  const { gate, config, grants, sessionKeys, metrics, log } = deps;
  app.post(
    MEDIA_GRANTS_PATH,
    {
      bodyLimit: AUTH_BODY_LIMIT,
      schema: { body: GrantBody, response: { 200: MediaGrantReply } },
      // Preconditions of the node come before the body: no body can make a grant possible.
      preValidation: async () => {
        if (!gate.hasPassword) throw errors.adminAuthDisabled();
        if (!config.config.auth_backend) throw errors.mediaAuthDisabled();
      },
    },
    async (req) => {
      const principal = principalOf(req);
      // The gate lets only sessions (or an open gate, stopped above) through; this is the belt to those braces.
      if (principal?.kind !== 'session') throw errors.forbidden('api_token_is_not_a_media_credential');
      const problem = grantProblem(req.body);
      if (problem) throw errors.invalidRequest(problem);
      metrics.grant(req.body.intent);
      return grants.issue(req.body, clientAddressOf(req), principal.expiresAt);
    },
  );

  app.post(
    '/api/v1/auth/rotate-session-keys',
    {
      schema: { response: { 200: Type.Object({ kid: Type.String(), keys_in_window: Type.Integer() }) } },
    },
    async () => {
      const current = config.config;
      if (current.cluster_id !== undefined) throw errors.clusterManagedKeys();
      if (!current.auth_backend) throw errors.mediaAuthDisabled();
      const rotated = sessionKeys.rotate();
      log.info({ kid: rotated.kid, keys_in_window: rotated.keys_in_window }, 'session ticket key rotated');
      return rotated;
    },
  );
}
