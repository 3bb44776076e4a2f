import { client, ok, sessionToken, type Reply } from './client.js';
import type { paths } from './openapi.gen.js';
import { readSse } from '../lib/sse.js';

/** A sample of the plane's own process (GET /monitor/plane and its stream's frames). */
export type Sample = Reply<'/api/v1/monitor/plane'>['samples'][number];
/** An entry of the plane's log ring (GET /logs/plane and its stream's frames). */
export type LogEntry = Reply<'/api/v1/logs/plane'>['entries'][number];
export type LogQuery = NonNullable<paths['/api/v1/logs/plane']['get']['parameters']['query']>;

/**
 * A frame of GET /monitor/nodes: an event stream, which the OpenAPI document does not describe
 * (no JSON body), so its frame is written out here from document 1 until the plane's schema says it.
 */
export interface NodeFrame {
  seq: number;
  node_id: string;
  reachable: boolean;
  last_seen_at: string | null;
  attempted_at: string;
  errors: string[];
  system_telemetry: null | {
    proc_cpu_cores: number;
    host_cpu_busy_pct: number;
    rss_mb: number;
    mem_available_mb: number;
    stream_counts: Record<string, number>;
  };
}

export const monitorKeys = {
  summary: ['summary'] as const,
  plane: ['plane-samples'] as const,
  log: (q: LogQuery) => ['log', q] as const,
};

export const fleetSummary = () => ok(client.GET('/api/v1/monitor/fleet/summary'));
export const planeSamples = () => ok(client.GET('/api/v1/monitor/plane'));
export const planeLog = (query: LogQuery) => ok(client.GET('/api/v1/logs/plane', { params: { query } }));

/**
 * Follows one of the monitor's event streams with the session's bearer (EventSource cannot send
 * it); each frame's text to `onData`. Resolves when the stream ends.
 */
export const followStream = (path: string, onData: (data: string) => void, signal: AbortSignal) =>
  readSse(path, sessionToken() ?? '', { frame: (data) => onData(data) }, signal);
