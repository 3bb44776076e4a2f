import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { NodePoll, SweepReport } from '../../../src/plane/sweeper/sweep-report.js';

/** A poll of a node that answered with `live` of `total` streams live. */
export function poll(
  nodeId: string,
  over: Partial<NodePoll> = {},
  counts = { total: 3, live: 2, degraded: 1, failing: 0 },
): NodePoll {
  const at = over.attempted_ms ?? Date.UTC(2026, 0, 15, 12, 0, 0);
  return {
    node_id: nodeId,
    attempted_ms: at,
    last_seen_ms: at,
    reachable: true,
    system_telemetry: {
      cpus: 4,
      proc_cpu_cores: 0.25,
      host_cpu_busy_pct: 12.5,
      mem_total_mb: 8000,
      mem_available_mb: 4000,
      rss_mb: 120,
      stream_counts: counts,
    },
    storage_telemetry: [{ name: 'disk0', total_bytes: 1000, avail_bytes: 400, write_iops: 7, identity_healthy: true }],
    errors: [],
    license: 'ok',
    ...over,
  };
}

export const unreachable = (nodeId: string, lastSeen: number | null = null): NodePoll => ({
  node_id: nodeId,
  attempted_ms: Date.UTC(2026, 0, 15, 12, 0, 0),
  last_seen_ms: lastSeen,
  reachable: false,
  system_telemetry: null,
  storage_telemetry: null,
  errors: ['timeout'],
  license: null,
});

export function report(polls: NodePoll[], over: Partial<SweepReport> = {}): SweepReport {
  return { sampled_ms: Date.UTC(2026, 0, 15, 12, 0, 5), nodes_total: polls.length, polls, ...over };
}

export const nodeIds = (n: number) => Array.from({ length: n }, () => randomUUID());

/** Polls `pred` every 10 ms until it holds, or fails after `ms` (a bound for a hang, not a speed: a loaded CI took 5 s). */
export async function eventually(pred: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A response body whose reader stops and resumes on command: while `stalled`, writes stay queued
 * (counted in writableLength), so the stream looks lagging; `release()` acknowledges them.
 */
export function controllableResponse() {
  const written: string[] = [];
  const pending: Array<() => void> = [];
  const state = { stalled: true };
  const raw = new Writable({
    highWaterMark: 1,
    write(chunk, _enc, cb) {
      written.push(String(chunk));
      if (state.stalled) pending.push(cb);
      else cb();
    },
  }) as any;
  raw.writeHead = () => raw;
  raw.flushHeaders = () => {};
  return {
    reply: { raw, hijack() {} } as any,
    req: (headers: Record<string, string> = {}) => ({ headers, raw: { socket: { setNoDelay() {} } } }) as any,
    raw,
    written,
    release() {
      state.stalled = false;
      for (const cb of pending.splice(0)) cb();
    },
    text: () => written.join(''),
  };
}
