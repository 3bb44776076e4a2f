/**
 * What one sweep found (document 1 "Fleet and process telemetry", document 4 §6 and §9): the
 * sweeper hands it to the fleet monitor once the sweep's results are stored, and the monitor
 * turns it into the fleet summary and the node telemetry frames. Only the process that swept
 * publishes a report; the monitor carries it to the other plane processes.
 */
export interface StreamCounts {
  total: number;
  live: number;
  degraded: number;
  failing: number;
}

export interface SystemTelemetry {
  cpus: number;
  proc_cpu_cores: number;
  host_cpu_busy_pct: number;
  mem_total_mb: number;
  mem_available_mb: number;
  rss_mb: number;
  stream_counts: StreamCounts;
}

export interface StorageTelemetry {
  name: string;
  total_bytes: number;
  avail_bytes: number;
  write_iops: number;
  identity_healthy: boolean;
}

export type LicenseState = 'ok' | 'grace' | 'unlicensed';

/** One enabled node's poll in this sweep. */
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
