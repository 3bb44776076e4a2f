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
/** Up to this many cameras are re-read one by one (in parallel); more, through the list. */
const FEW = 4;

/**
 * The inventory through CamerasService's public methods: its list, paged, for the nodes and
 * for re-checking many cameras; one `visible` per camera for a few. A stand-in until CamerasService answers both in one
 * query each (docs/node-ops.md, "Asked of other domains"); the rights rule is the same.
 */
export function camerasInventory(cameras: CamerasService): SessionsInventory {
  /** Every visible camera, through the list (one query per 500). */
  async function* all(p: Principal) {
    let after: string | undefined;
    for (;;) {
      const page = await cameras.list(p, { ...(after ? { after } : {}), limit: PAGE });
      yield* page.rows;
      if (page.next === null) return;
      after = page.next;
    }
  }
  return {
    async visibleNodeIds(p) {
      const nodes = new Set<string>();
      for await (const c of all(p)) nodes.add(c.node_id);
      return [...nodes].sort();
    },
    async visibleCameras(p, ids) {
      const wanted = new Set(ids);
      const out = new Map<string, { name: string; node_id: string }>();
      if (wanted.size > FEW) {
        // Many cameras: one pass over the list costs fewer queries than one read each.
        for await (const c of all(p)) if (wanted.has(c.id)) out.set(c.id, { name: c.name, node_id: c.node_id });
        return out;
      }
      await Promise.all([...wanted].map(async (id) => {
        try {
          const c = await cameras.visible(p, id);
          out.set(c.id, { name: c.name, node_id: c.node_id });
        } catch (err) {
          if ((err as { code?: string }).code !== errors.notFound().code) throw err;
        }
      }));
      return out;
    },
  };
}
