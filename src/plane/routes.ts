import type { FastifyInstance } from 'fastify';
import type { Database } from './db/database.js';
import type { DbHealth } from './db/health.js';
import type { AuthService } from './auth/auth.service.js';
import type { AuditService } from './audit/audit.service.js';
import type { InventoryServices } from './inventory.js';
import type { EventServices } from './eventing.js';
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
import { intakeRoutes } from './events/intake/intake.routes.js';
import { eventsCloseRoute, eventsReadRoutes } from './events/feed/events.routes.js';
import { eventsNavigationRoutes } from './events/navigation/navigation.routes.js';
import { evidenceReadRoutes } from './evidence/evidence.routes.js';
import { eventStreamRoutes } from './events/stream/stream.routes.js';
import { purgeRoutes } from './events/retention/purge.routes.js';
import { templatesRoutes } from './templates/templates.routes.js';
import { previewRoutes } from './evidence/preview.routes.js';

export interface RouteDeps {
  health: DbHealth;
  auth: AuthService;
  audit: AuditService;
  inventory: InventoryServices;
  events: EventServices;
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
    requireModuleToken(intake, deps.events.moduleTokens, deps.health);
    intakeRoutes(intake, deps.events);
  });
  app.register(async (either) => {
    requireSessionOrModuleToken(either, deps.auth, deps.events.moduleTokens, deps.health);
    eventsCloseRoute(either, deps.events);
  });

  app.register(async (authd) => {
    requireSession(authd, deps.auth, deps.health);
    sessionRoutes(authd, deps);
    authd.register(async (s) => auditRoutes(s, deps));
    usersSelfRoutes(authd, deps.inventory);
    camerasReadRoutes(authd, deps.inventory);
    eventStreamRoutes(authd, deps.events);
    eventsReadRoutes(authd, deps.events);
    eventsNavigationRoutes(authd, deps.events);
    evidenceReadRoutes(authd, deps.events);
    previewRoutes(authd, deps.events);

    authd.register(async (admin) => {
      requireRole(admin, 'admin');
      usersAdminRoutes(admin, deps.inventory);
      grantsRoutes(admin, deps.inventory);
      tagsRoutes(admin, deps.inventory);
      camerasAdminRoutes(admin, deps.inventory);
      moduleTokensRoutes(admin, deps.events);
      templatesRoutes(admin, deps.events);
    });

    authd.register(async (superadmin) => {
      requireRole(superadmin, 'superadmin');
      keyRotationRoute(superadmin, deps);
      orgsRoutes(superadmin, deps.inventory);
      nodesRoutes(superadmin, deps.inventory);
      purgeRoutes(superadmin, deps.events);
    });
  });
}
