import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { PlaneConfig } from '../config/config.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DomainParts } from '../http/module.js';
import { AuthService } from './auth.service.js';
import { SecurityLog } from './security-log.js';
import { SessionTokens } from './session-tokens.js';
import { LoginThrottle } from './login-throttle.js';
import { keyRotationRoute, loginRoute, sessionRoutes } from './auth.routes.js';

/** Sessions: login (throttled), the signing key, verification of every session request. */
export function createAuth(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  log: Logger;
  config: Pick<PlaneConfig, 'sessionTtlSecs' | 'loginThrottle'>;
}): DomainParts & { auth: AuthService } {
  // One security log for logins, the throttle and token refusals: one bound on the addresses it remembers.
  const security = new SecurityLog(deps.clock);
  const tokens = new SessionTokens(deps.db, deps.clock, deps.log, security, deps.config.sessionTtlSecs);
  const throttle = new LoginThrottle(deps.db, deps.clock, deps.log, security, deps.config.loginThrottle);
  const auth = new AuthService(deps.db, deps.clock, deps.audit, deps.log, tokens, throttle, security, {
    sessionTtlSecs: deps.config.sessionTtlSecs,
  });
  return {
    auth,
    routes: {
      database: (app) => loginRoute(app, { auth }),
      session: (app) => sessionRoutes(app, { auth }),
      superadmin: (app) => keyRotationRoute(app, { auth }),
    },
    jobs: () => [throttle.pruneJob(), auth.sessionExpiryJob()],
  };
}
