import type { Db } from '../db/database.js';
import type { Principal } from '../http/principal.js';
import type { CamerasService } from '../cameras/cameras.service.js';
import { mainStream, subStream } from '../cameras/provisioning.js';
import type { StreamFigures } from '../sweeper/sweep-report.js';
import { fleetStore } from './fleet.store.js';

/** At most this many cameras in one ask: a page of the Cameras list. */
export const MAX_FIGURE_CAMERAS = 200;

export interface CameraFigures {
  camera_id: string;
  /** when the sweep that read them polled the camera's node (RFC 3339) */
  sampled_at: string;
  main: StreamFigures | null;
  sub: StreamFigures | null;
}

/**
 * Each camera's ingest figures (state, frames per second, bitrate, resolution, codec) as the
 * latest sweep read them from its node (issue 22, the Cameras page): the fleet telemetry the
 * sweeper already gathers, kept beside the node frames (migration 0019), so asking costs one
 * read and no call to a node. Only cameras the caller may see are answered.
 */
export class StreamFiguresService {
  constructor(
    private readonly db: Db,
    private readonly cameras: Pick<CamerasService, 'visibleCameras'>,
  ) {}

  async forCameras(p: Principal, ids: string[]): Promise<{ rows: CameraFigures[] }> {
    const visible = await this.cameras.visibleCameras(p, ids.slice(0, MAX_FIGURE_CAMERAS));
    const nodeIds = [...new Set([...visible.values()].map((c) => c.node_id))];
    const byNode = new Map<string, { at: string; streams: Map<string, StreamFigures> }>();
    for (const r of await fleetStore.streamFigures(this.db, nodeIds)) {
      const list = JSON.parse(r.streams) as StreamFigures[];
      byNode.set(r.node_id, { at: r.attempted_at, streams: new Map(list.map((s) => [s.name, s])) });
    }
    const rows: CameraFigures[] = [];
    for (const [id, c] of visible) {
      const node = byNode.get(c.node_id);
      if (!node) continue;
      rows.push({
        camera_id: id,
        sampled_at: node.at,
        main: node.streams.get(mainStream(id)) ?? null,
        sub: node.streams.get(subStream(id)) ?? null,
      });
    }
    rows.sort((a, b) => (a.camera_id < b.camera_id ? -1 : 1));
    return { rows };
  }
}
