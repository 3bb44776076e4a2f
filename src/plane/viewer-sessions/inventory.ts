import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import type { CamerasService } from '../cameras/cameras.service.js';

/** What the fleet-wide session list asks of the camera inventory, always within the caller's camera rights. */
export interface SessionsInventory {
  /** The distinct nodes hosting cameras the caller may see, ascending by id. */
  visibleNodeIds(p: Principal): Promise<string[]>;
  /** Those of `ids` the caller may see now (they exist and are visible), with their name and node. */
  visibleCameras(p: Principal, ids: string[]): Promise<Map<string, { name: string; node_id: string }>>;
}

const PAGE = 500;
const RECHECK_BATCH = 4;

/**
 * The inventory through CamerasService's public methods: its list, paged, for the nodes; one
 * `visible` per camera for the re-check. A stand-in until CamerasService answers both in one
 * query each (docs/node-ops.md, "Asked of other domains"); the rights rule is the same.
 */
export function camerasInventory(cameras: CamerasService): SessionsInventory {
  return {
    async visibleNodeIds(p) {
      const nodes = new Set<string>();
      let after: string | undefined;
      for (;;) {
        const page = await cameras.list(p, { ...(after ? { after } : {}), limit: PAGE });
        for (const c of page.rows) nodes.add(c.node_id);
        if (page.next === null) break;
        after = page.next;
      }
      return [...nodes].sort();
    },
    async visibleCameras(p, ids) {
      const out = new Map<string, { name: string; node_id: string }>();
      const all = [...new Set(ids)];
      // A few at a time: a page of 100 viewers of 100 cameras must not take the whole pool.
      for (let i = 0; i < all.length; i += RECHECK_BATCH) {
        await Promise.all(all.slice(i, i + RECHECK_BATCH).map(async (id) => {
          try {
            const c = await cameras.visible(p, id);
            out.set(c.id, { name: c.name, node_id: c.node_id });
          } catch (err) {
            if ((err as { code?: string }).code !== errors.notFound().code) throw err;
          }
        }));
      }
      return out;
    },
  };
}
