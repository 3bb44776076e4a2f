import type { Principal } from '../http/principal.js';
import type { SessionsPageNode } from '../cameras/cameras.service.js';

/**
 * What the fleet-wide session list asks of the camera inventory, always within the caller's
 * camera rights (CamerasService answers both, one query each).
 */
export interface SessionsInventory {
  /**
   * The first `count + 1` nodes from `from` (inclusive, ascending by id) hosting cameras the
   * caller may see (only `camera` when given), with their sealed write token and, for the first
   * `count`, their cameras and whether the caller may see each: a page's nodes and its rights
   * check in one query.
   */
  sessionsNodePage(
    p: Principal,
    q: { from: string | null; camera: string | null; count: number },
  ): Promise<SessionsPageNode[]>;
  /** Those of `ids` the caller may see now (they exist and are visible), with their name and node. */
  visibleCameras(p: Principal, ids: string[]): Promise<Map<string, { name: string; node_id: string }>>;
}
