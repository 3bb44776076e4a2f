import type { BuildInfo } from '../../common/build-info.js';
import type { ConfigService } from '../config/config.service.js';
import type { Gate } from '../gate/gate.service.js';
import type { SessionKeyRing } from '../grants/session-keys.js';
import type { LicenseService } from '../license/license.service.js';
import type { Recordings } from '../lifecycle/recordings.js';
import type { DvrService } from '../media/dvr/dvr.service.js';
import type { MediaPipeline } from '../media/ingest/ingest.service.js';
import type { ViewerSessions } from '../media/viewer/sessions.service.js';
import type { StreamRegistry } from '../system/streams.service.js';
import { Exposition, samplesOf, type NodeMetrics } from './metrics.service.js';

/** The JSON dump must stay a debugging aid: past this size the per-stream list is cut. */
export const METRICS_DUMP_LIMIT_BYTES = 256 * 1024;

export interface MetricsReportDeps {
  build: BuildInfo;
  metrics: NodeMetrics;
  registry: StreamRegistry;
  config: ConfigService;
  license: LicenseService;
  gate: Gate;
  sessionKeys: SessionKeyRing;
  recordings: Recordings;
  sessions: ViewerSessions;
  dvr: DvrService;
  pipeline: MediaPipeline;
}

/** What `/metrics` (Prometheus text) and `/api/v1/metrics` (JSON dump) report about the node. */
export class MetricsReport {
  constructor(private readonly deps: MetricsReportDeps) {}

  exposition(): string {
    const { build: b, metrics, registry, config, license, recordings, sessions, dvr } = this.deps;
    const counts = registry.counts();
    const states = new Map<string, number>();
    for (const s of registry.list()) states.set(s.state, (states.get(s.state) ?? 0) + 1);
    const lic = license.status();
    return new Exposition()
      .family('argus_node_build_info', 'gauge', 'Build of the running node.', [
        [{ version: b.version, git: b.git, build_date: b.build_date }, 1],
      ])
      .family('argus_node_uptime_seconds', 'gauge', 'Seconds since the node started.', [
        [{}, Math.round((Date.now() - metrics.startedAt) / 1000)],
      ])
      .family('argus_node_streams', 'gauge', 'Configured streams.', [[{}, counts.total]])
      .family('argus_node_streams_by_state', 'gauge', 'Configured streams by state.', samplesOf(states, 'state'))
      .family('argus_node_config_epoch', 'gauge', 'Epoch of the applied configuration.', [[{}, config.epoch.epoch]])
      .family(
        'argus_node_license_state',
        'gauge',
        'Licence state (1 for the current one).',
        (['ok', 'grace', 'unlicensed', 'none'] as const).map((s) => [
          { state: s },
          (lic.state ?? 'none') === s ? 1 : 0,
        ]),
      )
      .family(
        'argus_node_gate_decisions_total',
        'counter',
        'Management gate decisions by result.',
        samplesOf(metrics.gate, 'result'),
      )
      .family(
        'argus_node_admin_logins_total',
        'counter',
        'Administrator login attempts by result.',
        samplesOf(metrics.logins, 'result'),
      )
      .family(
        'argus_node_media_grants_total',
        'counter',
        'Media grants issued by intent.',
        samplesOf(metrics.grants, 'intent'),
      )
      .family(
        'argus_node_http_responses_total',
        'counter',
        'HTTP responses by status class.',
        samplesOf(metrics.http, 'class'),
      )
      .family('argus_node_open_recordings', 'gauge', 'Recordings with an open file.', [[{}, recordings.count]])
      .family('argus_node_viewer_sessions', 'gauge', 'Live viewer sessions.', [[{}, sessions.list().length]])
      .family(
        'argus_node_recorded_bytes',
        'gauge',
        'Bytes of recording kept, by stream.',
        config.config.streams.flatMap((s) => {
          const store = dvr.store(s.name);
          return store ? [[{ stream: s.name }, store.bytes] as [Record<string, string>, number]] : [];
        }),
      )
      .family('process_resident_memory_bytes', 'gauge', 'Resident memory of the node process.', [
        [{}, process.memoryUsage.rss()],
      ])
      .text();
  }

  dump(): Record<string, unknown> {
    const { build, metrics, registry, config, license, gate, sessionKeys, recordings, sessions, pipeline } = this.deps;
    const dump = {
      build,
      uptime_ms: Date.now() - metrics.startedAt,
      config: { epoch: config.epoch.epoch, hash: config.epoch.hash, history_entries: config.history.list().length },
      gate: {
        enabled: gate.enabled,
        password: gate.hasPassword,
        static_tokens: gate.hasStaticTokens,
        persistent_sessions: gate.persistentSessions,
        decisions: Object.fromEntries(metrics.gate),
      },
      logins: Object.fromEntries(metrics.logins),
      media_grants: Object.fromEntries(metrics.grants),
      http: Object.fromEntries(metrics.http),
      session_keys: { in_window: sessionKeys.size },
      license: license.status(),
      recordings: { open: recordings.count },
      process: { memory: process.memoryUsage(), cpu: process.cpuUsage(), pid: process.pid, node: process.version },
      stream_counts: registry.counts(),
      streams: registry.list().map((s) => ({ ...s, ingest: pipeline.status(s.name) })) as unknown[],
      viewer_sessions: sessions.list().length,
      truncated: false,
      limit_bytes: METRICS_DUMP_LIMIT_BYTES,
    };
    // Halve the stream list until the dump fits: a node with many streams still answers.
    while (Buffer.byteLength(JSON.stringify(dump)) > METRICS_DUMP_LIMIT_BYTES && dump.streams.length > 0) {
      dump.streams = dump.streams.slice(0, Math.floor(dump.streams.length / 2));
      dump.truncated = true;
    }
    return dump;
  }
}
