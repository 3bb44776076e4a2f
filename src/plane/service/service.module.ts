import type { DbHealth } from '../db/health.js';
import type { AuthService } from '../auth/auth.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { publicServiceRoutes, versionRoute } from './service.routes.js';

/** The service routes: liveness, the paths document 1 leaves unimplemented, the running build. */
export function createService(deps: { health: DbHealth; auth: AuthService }): DomainParts {
  return {
    routes: {
      public: (app) => {
        publicServiceRoutes(app, deps);
        versionRoute(app, deps);
      },
    },
    jobs: noJobs,
  };
}
