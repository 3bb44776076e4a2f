import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { PlaneConfig } from '../config/config.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DomainParts } from '../http/module.js';
import { AuthService } from './auth.service.js';
import { keyRotationRoute, loginRoute, sessionRoutes } from './auth.routes.js';

/** Sessions: login (throttled), the signing key, verification of every session request. */
export function createAuth(deps: {
  db: Db; clock: Clock; audit: AuditService; log: Logger; config: Pick<PlaneConfig, 'sessionTtlSecs' | 'loginThrottle'>;
}): DomainParts & { auth: AuthService } {
  const auth = new AuthService(deps.db, deps.clock, deps.audit, deps.log, { sessionTtlSecs: deps.config.sessionTtlSecs, throttle: deps.config.loginThrottle });
  return {
    auth,
    routes: {
      database: (app) => loginRoute(app, { auth }),
      session: (app) => sessionRoutes(app, { auth }),
      superadmin: (app) => keyRotationRoute(app, { auth }),
    },
    jobs: () => [auth.throttlePruneJob(), auth.sessionExpiryJob()],
  };
}
