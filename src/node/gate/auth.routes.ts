import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from 'typebox';
import type { Logger } from 'pino';
import { clientAddressOf } from './request-access.js';
import { errors } from '../errors.js';
import type { NodeMetrics } from '../metrics/metrics.service.js';
import type { NodeFastify } from '../typed.js';
import { LOGIN_PATH } from './levels.js';
import { WRONG_PASSWORD_DELAY_MS, type Gate } from './gate.service.js';
import type { LoginThrottle } from './throttle.js';

export const AUTH_BODY_LIMIT = 4096;

const LoginBody = Type.Object({ password: Type.String({ maxLength: 1024 }) });

export interface AuthRoutesDeps {
  gate: Gate;
  throttle: LoginThrottle;
  metrics: NodeMetrics;
  log: Logger;
}

export function authRoutes(app: NodeFastify, deps: AuthRoutesDeps): void {
  const { gate, throttle, metrics, log } = deps;
  app.post(
    LOGIN_PATH,
    {
      bodyLimit: AUTH_BODY_LIMIT,
      schema: { body: LoginBody },
      preValidation: async (req) => {
        if (!gate.hasPassword) {
          metrics.login('disabled');
          throw errors.loginDisabled();
        }
        const wait = throttle.retryAfter(clientAddressOf(req));
        if (wait > 0) {
          metrics.login('throttled');
          throw errors.tooManyRequests(wait);
        }
        // Counted before the (asynchronous) password check, cleared by a success: counted after it,
        // every guess already in flight passed the window, as many as the address opened connections.
        throttle.fail(clientAddressOf(req));
      },
    },
    async (req) => {
      const address = clientAddressOf(req);
      if (!(await gate.checkPassword(req.body.password))) {
        metrics.login('wrong_password');
        // Unconditional: every wrong answer costs the same, whatever else happens meanwhile.
        await sleep(WRONG_PASSWORD_DELAY_MS);
        log.warn({ address }, 'admin login refused: wrong password');
        throw errors.unauthorized();
      }
      throttle.succeed(address);
      metrics.login('ok');
      const session = await gate.issueSession(address);
      log.info({ address, expires_at: session.expires_at }, 'admin session opened');
      return { token: session.token, token_type: 'Bearer', expires_at: session.expires_at };
    },
  );
}
