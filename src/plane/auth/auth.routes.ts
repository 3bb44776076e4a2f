import type { PlaneApp } from '../http/typed.js';
import { iso } from '../../common/time.js';
import type { AuthService } from './auth.service.js';
import { clientOf } from '../http/scopes.js';
import { principalOf } from '../http/principal.js';
import { LoginBody, LoginReply, MeReply, RotateQuery, RotateReply } from './auth.schemas.js';

export function loginRoute(app: PlaneApp, deps: { auth: AuthService }): void {
  app.post(
    '/api/v1/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Open a 12 h session',
        body: LoginBody,
        response: { 200: LoginReply },
        errors: ['invalidCredentials', 'loginThrottled', 'bad_login'],
      },
      bodyLimit: 16 * 1024,
    },
    async (req) => deps.auth.login(req.body.login, req.body.password, clientOf(req)),
  );
}

export function sessionRoutes(app: PlaneApp, deps: { auth: AuthService }): void {
  app.post(
    '/api/v1/auth/logout',
    {
      schema: { tags: ['auth'], summary: 'Revoke the calling session', security: [{ bearer: [] }], errors: [] },
    },
    async (req, reply) => {
      await deps.auth.logout(principalOf(req));
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v1/auth/me',
    {
      schema: {
        errors: [],
        tags: ['auth'],
        summary: 'The calling user and session',
        security: [{ bearer: [] }],
        response: { 200: MeReply },
      },
    },
    async (req) => {
      const p = principalOf(req);
      return {
        user: { id: p.userId, org_id: p.orgId, login: p.login, name: p.name, role: p.role, disabled: false },
        session: { id: p.sessionId, expires_at: iso(p.expiresAt) },
      };
    },
  );
}

/** Superadmin scope. */
export function keyRotationRoute(app: PlaneApp, deps: { auth: AuthService }): void {
  app.post(
    '/api/v1/admin/keys/rotate',
    {
      schema: {
        errors: ['rotateFailed'],
        tags: ['auth'],
        summary: 'Rotate the session signing key: every session token stops verifying at once',
        security: [{ bearer: [] }],
        querystring: RotateQuery,
        response: { 200: RotateReply },
      },
    },
    async (req) => deps.auth.rotateKeys(principalOf(req), req.query.scope === 'material' ? 'material' : 'kid'),
  );
}
