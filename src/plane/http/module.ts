import type { Job } from '../jobs/jobs.js';
import type { PlaneApp } from './typed.js';

/**
 * The scopes routes.ts lays out, outermost first: `public` (no credential, no database),
 * `database` (no credential, 503 while the database is away: login), `session` (a live
 * session), `admin` and `superadmin` (role gates inside the session scope).
 */
export type Scope = 'public' | 'database' | 'session' | 'admin' | 'superadmin';

/** A domain's route registration, per scope it has routes in. */
export type ScopedRoutes = Partial<Record<Scope, (app: PlaneApp) => void>>;

/**
 * What every domain factory (`create<Domain>(deps)`) returns besides its services: its routes
 * and its named background jobs, which app.ts starts once the database is ready.
 */
export interface DomainParts {
  routes: ScopedRoutes;
  jobs(): Job[];
}

export const noJobs = (): Job[] => [];
