import type { NodeLicenseState, NodeStorage, NodeTelemetry } from '../../common/node-api.js';

// The node's figures as its `GET /api/v1/system` gives them (src/common/node-api.ts): typed once, there.
export type SystemTelemetry = NodeTelemetry;
export type StorageTelemetry = NodeStorage;
export type LicenseState = NodeLicenseState;

/**
 * What one sweep found (document 1 "Fleet and process telemetry", document 4 §6 and §9): the
 * sweeper hands it to the fleet monitor once the sweep's results are stored, and the monitor
 * turns it into the fleet summary and the node telemetry frames. Only the process that swept
 * publishes a report; the monitor carries it to the other plane processes.
 *
 * One enabled node's poll in this sweep:
 */
export interface NodePoll {
  node_id: string;
  /** when the sweeper tried to poll the node (epoch ms) */
  attempted_ms: number;
  /** last time the node answered, this sweep included (epoch ms), or null */
  last_seen_ms: number | null;
  reachable: boolean;
  /** null when unreachable or when the reply lacked it */
  system_telemetry: SystemTelemetry | null;
  storage_telemetry: StorageTelemetry[] | null;
  /** short words: `timeout`, `http 401`, `bad_body`, `refused`, ... (document 4 §9) */
  errors: string[];
  /** the node's licence signal; null: no signal (counted in neither banner counter) */
  license: LicenseState | null;
  /** each stream's state and ingest figures (the Cameras page shows them); null when the list was not read */
  streams?: StreamFigures[] | null;
}

/** One stream's ingest figures as the node reported them in this sweep. */
export interface StreamFigures {
  name: string;
  state: string;
  fps: number | null;
  bitrate_kbps: number | null;
  resolution: string | null;
  codec: string | null;
}

export interface SweepReport {
  /** the time of the sweep (epoch ms) */
  sampled_ms: number;
  /** all nodes, enabled or not */
  nodes_total: number;
  /** one entry per enabled node polled in this sweep */
  polls: NodePoll[];
}

/** Where the sweeper hands its report (the fleet monitor). */
export interface SweepSink {
  publish(report: SweepReport): Promise<void>;
}

/** The figures of a stream row the sweeper read (a row built by hand in tests may lack them). */
export function figuresOf(s: {
  name: string;
  state: string;
  fps?: number | null;
  bitrate_kbps?: number | null;
  resolution?: string | null;
  codec?: string | null;
}): StreamFigures {
  return {
    name: s.name,
    state: s.state,
    fps: s.fps ?? null,
    bitrate_kbps: s.bitrate_kbps ?? null,
    resolution: s.resolution ?? null,
    codec: s.codec ?? null,
  };
}
