import type { Principal } from '../http/principal.js';

/**
 * What the fleet-wide session list asks of the camera inventory, always within the caller's
 * camera rights (CamerasService answers both, one query each).
 */
export interface SessionsInventory {
  /** The distinct nodes hosting cameras the caller may see, ascending by id. */
  visibleNodeIds(p: Principal): Promise<string[]>;
  /** Those of `ids` the caller may see now (they exist and are visible), with their name and node. */
  visibleCameras(p: Principal, ids: string[]): Promise<Map<string, { name: string; node_id: string }>>;
}
