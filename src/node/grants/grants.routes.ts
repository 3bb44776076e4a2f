import { Type } from 'typebox';
import type { NodeContext, NodeFastify } from '../context.js';
import { errors } from '../errors.js';
import { clientAddressOf, principalOf } from '../gate/gate.hook.js';
import { AUTH_BODY_LIMIT } from '../gate/auth.routes.js';
import { MEDIA_GRANTS_PATH } from '../gate/levels.js';
import { INTENTS, grantProblem } from './grants.service.js';

const GrantBody = Type.Object({
  stream: Type.String({ minLength: 1, maxLength: 256 }),
  intent: Type.Union(INTENTS.map((i) => Type.Literal(i))),
  protocols: Type.Array(Type.String({ maxLength: 32 }), { minItems: 1, maxItems: 8, uniqueItems: true }),
}, { additionalProperties: false });

const MediaGrantReply = Type.Object({
  token: Type.String(),
  expires_at: Type.Integer(),
  server_time: Type.Integer(),
  ttl_secs: Type.Integer(),
  session_expires_at: Type.Integer(),
});

export function grantsRoutes(app: NodeFastify, ctx: NodeContext): void {
  app.post(MEDIA_GRANTS_PATH, {
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { body: GrantBody, response: { 200: MediaGrantReply } },
    // Preconditions of the node come before the body: no body can make a grant possible.
    preValidation: async () => {
      if (!ctx.gate.hasPassword) throw errors.adminAuthDisabled();
      if (!ctx.config.config.auth_backend) throw errors.mediaAuthDisabled();
    },
  }, async (req) => {
    const principal = principalOf(req);
    // The gate lets only sessions (or an open gate, stopped above) through; this is the belt to those braces.
    if (principal?.kind !== 'session') throw errors.forbidden('api_token_is_not_a_media_credential');
    const problem = grantProblem(req.body);
    if (problem) throw errors.invalidRequest(problem);
    ctx.metrics.grant(req.body.intent);
    return ctx.grants.issue(req.body, clientAddressOf(req), principal.expiresAt);
  });

  app.post('/api/v1/auth/rotate-session-keys', {
    schema: { response: { 200: Type.Object({ kid: Type.String(), keys_in_window: Type.Integer() }) } },
  }, async () => {
    const config = ctx.config.config;
    if (config.cluster_id !== undefined) throw errors.clusterManagedKeys();
    if (!config.auth_backend) throw errors.mediaAuthDisabled();
    const rotated = ctx.sessionKeys.rotate();
    ctx.log.info({ kid: rotated.kid, keys_in_window: rotated.keys_in_window }, 'session ticket key rotated');
    return rotated;
  });
}
