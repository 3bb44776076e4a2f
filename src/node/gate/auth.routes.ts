import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from 'typebox';
import type { NodeContext, NodeFastify } from '../context.js';
import { errors } from '../errors.js';
import { LOGIN_PATH } from './levels.js';
import { clientAddressOf } from './gate.hook.js';
import { WRONG_PASSWORD_DELAY_MS } from './gate.service.js';

export const AUTH_BODY_LIMIT = 4096;

const LoginBody = Type.Object({ password: Type.String({ maxLength: 1024 }) });

export function authRoutes(app: NodeFastify, ctx: NodeContext): void {
  app.post(LOGIN_PATH, {
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { body: LoginBody },
    preValidation: async (req) => {
      if (!ctx.gate.hasPassword) { ctx.metrics.login('disabled'); throw errors.loginDisabled(); }
      const wait = ctx.throttle.retryAfter(clientAddressOf(req));
      if (wait > 0) { ctx.metrics.login('throttled'); throw errors.tooManyRequests(wait); }
      // Counted before the (asynchronous) password check, cleared by a success: counted after it,
      // every guess already in flight passed the window, as many as the address opened connections.
      ctx.throttle.fail(clientAddressOf(req));
    },
  }, async (req) => {
    const address = clientAddressOf(req);
    if (!(await ctx.gate.checkPassword(req.body.password))) {
      ctx.metrics.login('wrong_password');
      // Unconditional: every wrong answer costs the same, whatever else happens meanwhile.
      await sleep(WRONG_PASSWORD_DELAY_MS);
      ctx.log.warn({ address }, 'admin login refused: wrong password');
      throw errors.unauthorized();
    }
    ctx.throttle.succeed(address);
    ctx.metrics.login('ok');
    const session = await ctx.gate.issueSession(address);
    ctx.log.info({ address, expires_at: session.expires_at }, 'admin session opened');
    return { token: session.token, token_type: 'Bearer', expires_at: session.expires_at };
  });
}
