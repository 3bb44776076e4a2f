import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { Principal } from '../http/principal.js';
import type { CamerasService } from '../cameras/cameras.service.js';
import { isTimeZone } from '../events/analytics/analytics.query.js';
import { errors } from '../errors.js';
import { preferencesStore } from './preferences.store.js';
import type { Preferences, PreferencesInput } from './preferences.schemas.js';

/** What a user who never saved reads (docs/preferences.md): the browser's zone, 24 h, no views. */
export const DEFAULT_PREFERENCES: Preferences = Object.freeze({ timezone: null, clock: '24h', views: [] });

/**
 * A user's own preferences (document 4 §12). Any signed-in user reads and replaces only the own
 * record: the route takes no user id, the principal is the key. A PUT is not audited: it is the
 * user's own display, not a record of the fleet (docs/preferences.md).
 */
export class PreferencesService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly cameras: Pick<CamerasService, 'visibleCameras'>,
  ) {}

  /** The caller's record, or the defaults; cameras the caller may not see now are left out. */
  async get(p: Principal): Promise<Preferences> {
    return this.asSeenBy(p, (await preferencesStore.get(this.db, p.userId)) ?? DEFAULT_PREFERENCES);
  }

  /** Replaces the caller's record whole; answers it as a GET would read it. */
  async put(p: Principal, body: PreferencesInput): Promise<Preferences> {
    if (body.timezone !== null && !isTimeZone(body.timezone)) throw errors.badRequest('bad_timezone');
    // Views are told apart by name in the console: two of one name (any case) would be one too many.
    const names = new Set(body.views.map((v) => v.name.toLowerCase()));
    if (names.size !== body.views.length) throw errors.badRequest('duplicate_view_name');
    const doc: Preferences = {
      timezone: body.timezone,
      clock: body.clock,
      // Stored as sent, in grid order, lower-cased as the database writes uuids (so they compare).
      // A camera not visible now is stored too (it is only shown while visible): no existence oracle.
      views: body.views.map((v) => ({
        name: v.name,
        layout: v.layout,
        camera_ids: v.camera_ids.map((id) => id.toLowerCase()),
      })),
    };
    await preferencesStore.put(this.db, p.userId, doc, new Date(this.clock.now()));
    return this.asSeenBy(p, doc);
  }

  /** The document with each view's cameras narrowed to those `p` may see now (one query). */
  private async asSeenBy(p: Principal, doc: Preferences): Promise<Preferences> {
    const ids = doc.views.flatMap((v) => v.camera_ids);
    if (!ids.length) return { timezone: doc.timezone, clock: doc.clock, views: doc.views };
    const visible = await this.cameras.visibleCameras(p, ids);
    return {
      timezone: doc.timezone,
      clock: doc.clock,
      views: doc.views.map((v) => ({ ...v, camera_ids: v.camera_ids.filter((id) => visible.has(id)) })),
    };
  }
}
