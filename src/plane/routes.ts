import type { DbHealth } from './db/health.js';
import type { AuthService } from './auth/auth.service.js';
import type { PlaneApp } from './http/typed.js';
import type { DomainParts, Scope } from './http/module.js';
import type { Events } from './events/index.js';
import type { ModuleTokensService } from './module-tokens/module-tokens.service.js';
import { requireDatabase, requireRole, requireSession } from './http/scopes.js';
import { requireModuleToken, requireSessionOrModuleToken } from './module-tokens/module-token.scope.js';

export interface RouteDeps {
  health: DbHealth;
  auth: AuthService;
  /** The domains built by their factories, in construction order; each says which scopes its routes sit in. */
  domains: readonly DomainParts[];
  events: Events;
  /** the module-token credential of the intake and close scopes */
  moduleTokens: ModuleTokensService;
}

/**
 * The scope layout, kept in one file so that where a route sits (and so who may call it) reads
 * at a glance: public, database-backed public (login), module-token (intake), authenticated (a
 * live session), admin and superadmin. Each domain's factory supplies its registration per
 * scope; the event domains register theirs through `events.routes`, per scope.
 */
export function registerRoutes(app: PlaneApp, deps: RouteDeps): void {
  const inScope = (scope: Scope, s: PlaneApp) => {
    for (const d of deps.domains) d.routes[scope]?.(s);
  };

  inScope('public', app);
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.register(async (pub) => {
    requireDatabase(pub, deps.health);
    inScope('database', pub);
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
    inScope('session', authd);
    deps.events.routes.session(authd);

    authd.register(async (admin) => {
      requireRole(admin, 'admin');
      inScope('admin', admin);
    });

    authd.register(async (superadmin) => {
      requireRole(superadmin, 'superadmin');
      inScope('superadmin', superadmin);
      deps.events.routes.superadmin(superadmin);
    });
  });
}
