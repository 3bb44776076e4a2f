import type { FastifyInstance } from 'fastify';
import type { Database } from './db/database.js';
import type { DbHealth } from './db/health.js';
import type { AuthService } from './auth/auth.service.js';
import type { AuditService } from './audit/audit.service.js';
import type { InventoryServices } from './inventory.js';
import type { Events } from './events/index.js';
import type { ModuleTokensService } from './module-tokens/module-tokens.service.js';
import type { TemplatesService } from './templates/templates.service.js';
import { requireDatabase, requireRole, requireSession } from './http/scopes.js';
import { publicServiceRoutes, versionRoute } from './service/service.routes.js';
import { loginRoute, sessionRoutes, keyRotationRoute } from './auth/auth.routes.js';
import { auditRoutes } from './audit/audit.routes.js';
import { orgsRoutes } from './orgs/orgs.routes.js';
import { usersAdminRoutes, usersSelfRoutes } from './users/users.routes.js';
import { grantsRoutes } from './rights/grants.routes.js';
import { tagsRoutes } from './tags/tags.routes.js';
import { nodesRoutes } from './nodes/nodes.routes.js';
import { camerasAdminRoutes, camerasReadRoutes } from './cameras/cameras.routes.js';
import { moduleTokensRoutes } from './module-tokens/module-tokens.routes.js';
import { requireModuleToken, requireSessionOrModuleToken } from './module-tokens/module-token.scope.js';
import { templatesRoutes } from './templates/templates.routes.js';

export interface RouteDeps {
  health: DbHealth;
  auth: AuthService;
  audit: AuditService;
  inventory: InventoryServices;
  events: Events;
  moduleTokens: ModuleTokensService;
  templates: TemplatesService;
  database: Database;
}

/**
 * The explicit register list. Scopes carry the permissions: public, database-backed public
 * (login), authenticated (a live session), admin and superadmin.
 */
export function registerRoutes(app: FastifyInstance, deps: RouteDeps): void {
  publicServiceRoutes(app, deps);
  versionRoute(app, deps);
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.register(async (pub) => {
    requireDatabase(pub, deps.health);
    loginRoute(pub, deps);
  });

  // Intake: a module token, not a session (a separate credential space).
  app.register(async (intake) => {
    requireModuleToken(intake, deps.moduleTokens, deps.health);
    deps.events.routes.moduleToken(intake);
  });
  app.register(async (either) => {
    requireSessionOrModuleToken(either, deps.auth, deps.moduleTokens, deps.health);
    deps.events.routes.sessionOrModuleToken(either);
  });

  app.register(async (authd) => {
    requireSession(authd, deps.auth, deps.health);
    sessionRoutes(authd, deps);
    authd.register(async (s) => auditRoutes(s, deps));
    usersSelfRoutes(authd, deps.inventory);
    camerasReadRoutes(authd, deps.inventory);
    deps.events.routes.session(authd);

    authd.register(async (admin) => {
      requireRole(admin, 'admin');
      usersAdminRoutes(admin, deps.inventory);
      grantsRoutes(admin, deps.inventory);
      tagsRoutes(admin, deps.inventory);
      camerasAdminRoutes(admin, deps.inventory);
      moduleTokensRoutes(admin, deps);
      templatesRoutes(admin, deps);
    });

    authd.register(async (superadmin) => {
      requireRole(superadmin, 'superadmin');
      keyRotationRoute(superadmin, deps);
      orgsRoutes(superadmin, deps.inventory);
      nodesRoutes(superadmin, deps.inventory);
      deps.events.routes.superadmin(superadmin);
    });
  });
}
