import type { DbHealth } from '../db/health.js';
import type { ReadRoute } from '../db/database.types.js';
import type { AuthService } from '../auth/auth.service.js';
import type { DomainParts } from '../http/module.js';
import { publicServiceRoutes, versionRoute } from './service.routes.js';

/** The service routes: liveness, the paths document 1 leaves unimplemented, the running build. */
export function createService(deps: { health: DbHealth; auth: AuthService; replicas: ReadRoute }): DomainParts {
  return {
    routes: {
      public: (app) => {
        publicServiceRoutes(app, deps);
        versionRoute(app, deps);
      },
    },
    // The replicas' lag checks, once the database is ready.
    jobs: () => deps.replicas.jobs(),
  };
}
