import { Type } from 'typebox';
import type { NodeContext, NodeFastify } from '../context.js';
import { Exposition, samplesOf } from './metrics.service.js';

/** The JSON dump must stay a debugging aid: past this size the per-stream list is cut. */
export const METRICS_DUMP_LIMIT_BYTES = 256 * 1024;

function exposition(ctx: NodeContext): string {
  const b = ctx.build;
  const counts = ctx.streams.counts();
  const states = new Map<string, number>();
  for (const s of ctx.streams.list()) states.set(s.state, (states.get(s.state) ?? 0) + 1);
  const lic = ctx.license.status();
  return new Exposition()
    .family('argus_node_build_info', 'gauge', 'Build of the running node.', [[{ version: b.version, git: b.git, build_date: b.build_date }, 1]])
    .family('argus_node_uptime_seconds', 'gauge', 'Seconds since the node started.', [[{}, Math.round((Date.now() - ctx.metrics.startedAt) / 1000)]])
    .family('argus_node_streams', 'gauge', 'Configured streams.', [[{}, counts.total]])
    .family('argus_node_streams_by_state', 'gauge', 'Configured streams by state.', samplesOf(states, 'state'))
    .family('argus_node_config_epoch', 'gauge', 'Epoch of the applied configuration.', [[{}, ctx.config.epoch.epoch]])
    .family('argus_node_license_state', 'gauge', 'Licence state (1 for the current one).',
      (['ok', 'grace', 'unlicensed', 'none'] as const).map((s) => [{ state: s }, (lic.state ?? 'none') === s ? 1 : 0]))
    .family('argus_node_gate_decisions_total', 'counter', 'Management gate decisions by result.', samplesOf(ctx.metrics.gate, 'result'))
    .family('argus_node_admin_logins_total', 'counter', 'Administrator login attempts by result.', samplesOf(ctx.metrics.logins, 'result'))
    .family('argus_node_media_grants_total', 'counter', 'Media grants issued by intent.', samplesOf(ctx.metrics.grants, 'intent'))
    .family('argus_node_http_responses_total', 'counter', 'HTTP responses by status class.', samplesOf(ctx.metrics.http, 'class'))
    .family('argus_node_open_recordings', 'gauge', 'Recordings with an open file.', [[{}, ctx.recordings.count]])
    .family('argus_node_viewer_sessions', 'gauge', 'Live viewer sessions.', [[{}, ctx.media.sessions.list().length]])
    .family('argus_node_recorded_bytes', 'gauge', 'Bytes of recording kept, by stream.',
      ctx.config.config.streams.flatMap((s) => {
        const store = ctx.media.dvr.store(s.name);
        return store ? [[{ stream: s.name }, store.bytes] as [Record<string, string>, number]] : [];
      }))
    .family('process_resident_memory_bytes', 'gauge', 'Resident memory of the node process.', [[{}, process.memoryUsage.rss()]])
    .text();
}

export function metricsRoutes(app: NodeFastify, ctx: NodeContext): void {
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8');
    return exposition(ctx);
  });

  app.get('/api/v1/metrics', { schema: { response: { 200: Type.Record(Type.String(), Type.Unknown()) } } }, async () => {
    const dump = {
      build: ctx.build,
      uptime_ms: Date.now() - ctx.metrics.startedAt,
      config: { epoch: ctx.config.epoch.epoch, hash: ctx.config.epoch.hash, history_entries: ctx.config.history.list().length },
      gate: { enabled: ctx.gate.enabled, password: ctx.gate.hasPassword, static_tokens: ctx.gate.hasStaticTokens, persistent_sessions: ctx.gate.persistentSessions, decisions: Object.fromEntries(ctx.metrics.gate) },
      logins: Object.fromEntries(ctx.metrics.logins),
      media_grants: Object.fromEntries(ctx.metrics.grants),
      http: Object.fromEntries(ctx.metrics.http),
      session_keys: { in_window: ctx.sessionKeys.size },
      license: ctx.license.status(),
      recordings: { open: ctx.recordings.count },
      process: { memory: process.memoryUsage(), cpu: process.cpuUsage(), pid: process.pid, node: process.version },
      stream_counts: ctx.streams.counts(),
      streams: ctx.streams.list().map((s) => ({ ...s, ingest: ctx.media.pipeline.status(s.name) })) as unknown[],
      viewer_sessions: ctx.media.sessions.list().length,
      truncated: false,
      limit_bytes: METRICS_DUMP_LIMIT_BYTES,
    };
    // Halve the stream list until the dump fits: a node with many streams still answers.
    while (Buffer.byteLength(JSON.stringify(dump)) > METRICS_DUMP_LIMIT_BYTES && dump.streams.length > 0) {
      dump.streams = dump.streams.slice(0, Math.floor(dump.streams.length / 2));
      dump.truncated = true;
    }
    return dump;
  });
}
