import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { CamerasService } from '../cameras/cameras.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { PreferencesService } from './preferences.service.js';
import { preferencesRoutes } from './preferences.routes.js';

/** Each user's own console preferences (document 4 §12): after cameras, whose visibility it reads. */
export function createPreferences(deps: {
  db: Db;
  clock: Clock;
  cameras: CamerasService;
}): DomainParts & { preferences: PreferencesService } {
  const preferences = new PreferencesService(deps.db, deps.clock, deps.cameras);
  return { preferences, routes: { session: (app) => preferencesRoutes(app, { preferences }) }, jobs: noJobs };
}
