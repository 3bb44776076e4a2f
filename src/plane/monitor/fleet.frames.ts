import { iso } from '../../common/time.js';
import { telemetryFields } from '../../common/node-api.js';
import type { CameraCounts } from '../cameras/cameras.service.js';
import type { NodePoll, StorageTelemetry, SweepReport, SystemTelemetry } from '../sweeper/sweep-report.js';

/** The fleet summary (document 1, "Fleet summary"); the field order is the order of the document. */
export interface FleetSummary {
  seq: number;
  sampled_at: string;
  nodes_total: number;
  nodes_reachable: number;
  stream_samples_stale: number;
  streams_total: number;
  streams_live: number;
  streams_degraded: number;
  streams_failing: number;
  cameras_total: number;
  cameras_live: number;
  cameras_unavailable: number;
  cameras_degraded: number;
  cameras_failing: number;
  nodes_unlicensed: number;
  nodes_grace: number;
}

/** A node telemetry frame (document 1, "Node telemetry frame"). */
export interface NodeFrame {
  seq: number;
  node_id: string;
  attempted_at: string;
  last_seen_at: string | null;
  reachable: boolean;
  system_telemetry: SystemTelemetry | null;
  storage_telemetry: StorageTelemetry[] | null;
  errors: string[];
}

/**
 * Before the first sweep this process knows of: sweep number 0, every counter 0, and the epoch
 * as `sampled_at` (a timestamp that says "never"; docs/monitor.md).
 */
export const EMPTY_SUMMARY: FleetSummary = {
  seq: 0,
  sampled_at: iso(0),
  nodes_total: 0,
  nodes_reachable: 0,
  stream_samples_stale: 0,
  streams_total: 0,
  streams_live: 0,
  streams_degraded: 0,
  streams_failing: 0,
  cameras_total: 0,
  cameras_live: 0,
  cameras_unavailable: 0,
  cameras_degraded: 0,
  cameras_failing: 0,
  nodes_unlicensed: 0,
  nodes_grace: 0,
};

// The documented fields only, in a fixed order (telemetryFields): every process encodes the same text.
const systemOf = (s: SystemTelemetry | null): SystemTelemetry | null => (s ? telemetryFields(s) : null);

function storageOf(list: StorageTelemetry[] | null): StorageTelemetry[] | null {
  return list
    ? list.map((s) => ({
        name: s.name,
        total_bytes: s.total_bytes,
        avail_bytes: s.avail_bytes,
        write_iops: s.write_iops,
        identity_healthy: s.identity_healthy,
      }))
    : null;
}

export function nodeFrameOf(seq: number, p: NodePoll): NodeFrame {
  return {
    seq,
    node_id: p.node_id,
    attempted_at: iso(p.attempted_ms),
    last_seen_at: iso(p.last_seen_ms),
    reachable: p.reachable,
    system_telemetry: systemOf(p.system_telemetry),
    storage_telemetry: storageOf(p.storage_telemetry),
    errors: [...p.errors],
  };
}

/** The node's stream total to keep: this sweep's count, else the one known before (document 1, stream_samples_stale). */
export function knownTotalOf(p: NodePoll, before: number | undefined): number | null {
  return p.system_telemetry ? p.system_telemetry.stream_counts.total : (before ?? null);
}

/**
 * The summary of one sweep. A reachable node whose counts could not be read is stale: its last
 * known total stays in streams_total, outside the live/degraded/failing split. An unreachable
 * node adds no streams (docs/monitor.md).
 */
export function summaryOf(
  seq: number,
  report: SweepReport,
  known: Map<string, number>,
  cameras: CameraCounts,
): FleetSummary {
  const s: FleetSummary = {
    ...EMPTY_SUMMARY,
    seq,
    sampled_at: iso(report.sampled_ms),
    nodes_total: report.nodes_total,
  };
  for (const p of report.polls) {
    if (p.license === 'unlicensed') s.nodes_unlicensed++;
    else if (p.license === 'grace') s.nodes_grace++;
    if (!p.reachable) continue;
    s.nodes_reachable++;
    const counts = p.system_telemetry?.stream_counts;
    if (!counts) {
      s.stream_samples_stale++;
      s.streams_total += known.get(p.node_id) ?? 0;
      continue;
    }
    s.streams_total += counts.total;
    s.streams_live += counts.live;
    s.streams_degraded += counts.degraded;
    s.streams_failing += counts.failing;
  }
  s.cameras_total = cameras.total;
  s.cameras_live = cameras.live;
  s.cameras_unavailable = cameras.unavailable;
  s.cameras_degraded = cameras.degraded;
  s.cameras_failing = cameras.failing;
  return s;
}

/** One poll per node (the last one given wins), so the snapshot has one frame per node. */
export function distinctPolls(polls: NodePoll[]): NodePoll[] {
  const byNode = new Map<string, NodePoll>();
  for (const p of polls) {
    byNode.delete(p.node_id);
    byNode.set(p.node_id, p);
  }
  return [...byNode.values()];
}
