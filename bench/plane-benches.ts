import { CONNECTIONS, copyBase, lastJson, num, replyP99, replyRate, row, type Bench } from './bench-spec.js';
import { READ_REPLICA_BENCH } from './plane-benches.replicas.js';
import { INTAKE_SINGLE_BENCH, WRITE_PATH_BENCHES } from './plane-benches.write.js';

/** The control plane's benches (bench/plane/), in the order npm run bench runs them. */
/** bench/plane/sessions.ts over `kind` nodes, beside one of them answering its own list. */
function sessionsBench(
  name: string,
  kind: 'fake' | 'real',
  size: Record<string, string>,
  nodes: string,
  one: string,
): Bench {
  return {
    name,
    file: 'plane/sessions.js',
    env: { NODE_KIND: kind, ...size, VIEWERS: '2', DURATION_S: '3', CONNECTIONS: String(CONNECTIONS) },
    figures(out) {
      const j = lastJson(out);
      return [
        {
          bench: name,
          figure: `GET /api/v1/sessions first page (${j.limit} rows of 4 ${nodes}, ${j.viewers} viewers)`,
          value: j.first_page.req_per_s,
          unit: 'req/s',
          baseline: { name: `${one} answering its own list`, value: j.node_direct.req_per_s, unit: 'req/s' },
          ratio: 'share',
        },
      ];
    },
  };
}

export const PLANE_BENCHES: Bench[] = [
  {
    name: 'intake',
    file: 'plane/intake.js',
    env: {
      DURATION_MS: '3000',
      CONCURRENCY: String(CONNECTIONS),
      SINGLE_MS: '2000',
      SINGLE_CONCURRENCY: String(CONNECTIONS),
    },
    figures(out) {
      const batched = row(out, 'POST /api/v1/events, batches of');
      const copy = row(out, 'COPY of the same rows');
      const single = row(out, 'POST /api/v1/events, batches of 1 ');
      const own = { name: 'COPY of the same rows into events', value: num(copy?.[3]) ?? NaN, unit: 'rows/s' };
      return [
        {
          bench: 'intake',
          figure: 'POST /api/v1/events, batches of 100',
          value: num(batched?.[3]),
          unit: 'events/s',
          baseline: own,
          ratio: 'share',
        },
        {
          bench: 'intake',
          figure: 'POST /api/v1/events, batches of 1',
          value: num(single?.[3]),
          unit: 'events/s',
          baseline: own,
          ratio: 'share',
        },
      ];
    },
  },
  INTAKE_SINGLE_BENCH,
  {
    name: 'audit-pages',
    file: 'plane/audit-pages.js',
    env: { ROWS: '20000', DURATION_S: '3', CONNECTIONS: String(CONNECTIONS) },
    figures(out, b) {
      const j = lastJson(out);
      return [
        {
          bench: 'audit-pages',
          figure: 'GET /api/v1/audit, 100-row pages',
          value: j.requests_per_s,
          unit: 'pages/s',
          baseline: replyRate(b),
          ratio: 'share',
        },
        {
          bench: 'audit-pages',
          figure: 'page p99',
          value: j.latency_ms.p99,
          unit: 'ms',
          baseline: replyP99(b),
          ratio: 'times',
        },
      ];
    },
  },
  {
    name: 'feed',
    file: 'plane/feed.js',
    env: { EVENTS: '20000', REQUESTS: '50', DURATION_MS: '2000', CONCURRENCY: String(CONNECTIONS) },
    figures(out, b) {
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('| ') && !l.startsWith('| request') && !l.startsWith('|---'));
      return lines.map((l) => {
        const c = l
          .split('|')
          .slice(1, -1)
          .map((x) => x.trim());
        return {
          bench: 'feed',
          figure: `${c[0]} p99`,
          value: num(c[4]),
          unit: 'ms',
          baseline: replyP99(b),
          ratio: 'times' as const,
        };
      });
    },
  },
  {
    // Issue 25, finding 1: another organisation's feed while one operator's analytics run.
    name: 'analytics-starvation',
    file: 'plane/analytics-starvation.js',
    env: { EVENTS: '20000', WORKERS: '10', DURATION_S: '10', BASELINE: '100' },
    figures(out) {
      const j = lastJson(out);
      return [
        {
          bench: 'analytics-starvation',
          figure: "org B feed p99 under 10 clients of org A's heavy analytics",
          value: j.loaded_p99_ms,
          unit: 'ms',
          baseline: { name: 'the same feed with no load, p99', value: j.baseline_p99_ms, unit: 'ms' },
          ratio: 'times',
        },
      ];
    },
  },
  {
    name: 'event-stream',
    file: 'plane/event-stream.js',
    env: { SUBSCRIBERS: '50', RATE: '200', DURATION_MS: '3000', USERS: '5', CAMERAS: '20' },
    figures(out, b) {
      const c = row(out, 'delivery latency');
      const p99 = c?.[1]?.split('/').map((x) => x.trim())[2];
      return [
        {
          bench: 'event-stream',
          figure: 'delivery p99, 50 streams, 200 events/s',
          value: num(p99),
          unit: 'ms',
          baseline: replyP99(b),
          ratio: 'times',
        },
      ];
    },
  },
  {
    name: 'fresh-rss',
    file: 'plane/fresh-rss.js',
    env: { SETTLE_MS: '3000' },
    figures(out) {
      const j = lastJson(out);
      return [
        {
          bench: 'fresh-rss',
          figure: `RSS of a fresh plane on the embedded database (target ${j.target_mb} MB)`,
          value: j.embedded_rss_mb.used,
          unit: 'MB',
          baseline: { name: 'the same plane on PostgreSQL', value: j.postgres_rss_mb.used, unit: 'MB' },
          ratio: 'times',
        },
      ];
    },
  },
  {
    name: 'sse-streams',
    file: 'plane/sse-streams.js',
    env: { USERS: '4', PER_USER: '8', RECORDS: '5' },
    figures(out) {
      const j = lastJson(out);
      return [
        {
          bench: 'sse-streams',
          figure: `RSS with ${j.streams_open} audit streams open`,
          value: j.plane_rss_mb.streams_open,
          unit: 'MB',
          baseline: { name: 'the same plane idle', value: j.plane_rss_mb.idle, unit: 'MB' },
          ratio: 'times',
        },
      ];
    },
  },
  {
    name: 'archive',
    file: 'plane/archive.js',
    env: { EVENTS: '5000', ATTACHMENTS: '50', INTAKE_RATE: '50' },
    figures(out, b) {
      const j = lastJson(out);
      return [
        {
          bench: 'archive',
          figure: 'organisation clean-up',
          value: j.events_per_s,
          unit: 'events/s',
          baseline: copyBase(b),
          ratio: 'share',
        },
      ];
    },
  },
  {
    name: 'evidence',
    file: 'plane/evidence-throughput.js',
    env: { SIZE_MB: '16', ROUNDS: '4', PARALLEL: '32' },
    figures(out) {
      const j = lastJson(out);
      const pair = (name: string) => ({
        bench: 'evidence',
        figure: `${name}, 16 MiB`,
        value: j.transfers[name].plane_mb_s,
        unit: 'MB/s',
        baseline: {
          name: name.startsWith('s3') ? 'the AWS SDK directly' : 'cp',
          value: j.transfers[name].direct_mb_s,
          unit: 'MB/s',
        },
        ratio: 'share' as const,
      });
      return [
        pair('folder upload'),
        pair('folder download'),
        pair('s3 upload'),
        pair('s3 download'),
        {
          bench: 'evidence',
          figure: `RSS growth, ${j.parallel.uploads} parallel 16 MiB uploads`,
          value: j.parallel.rss_growth_mb,
          unit: 'MB',
          baseline: { name: 'the limit', value: 64, unit: 'MB' },
          ratio: 'times',
        },
      ];
    },
  },
  {
    name: 'sweeper',
    file: 'plane/sweeper.js',
    env: { NODES: '20', CAMERAS: '2', INTERVAL_S: '2', PHASE_S: '4' },
    figures(out) {
      const j = lastJson(out);
      return [
        {
          bench: 'sweeper',
          figure: `node polls, ${j.nodes} nodes every ${j.interval_s} s`,
          value: j.steady.polls_per_s,
          unit: 'polls/s',
          baseline: { name: 'polls due', value: j.nodes / j.interval_s, unit: 'polls/s' },
          ratio: 'share',
        },
      ];
    },
  },
  {
    // Issue 26: the fleet at a small size (the full run: 5,000 nodes, 10 million events; docs/deployment.md).
    name: 'fleet-10k',
    file: 'plane/fleet-10k.js',
    env: { NODES: '300', CAMERAS: '2', EVENTS: '100000', REQUESTS: '50', SWEEPS: '2' },
    figures(out) {
      const j = lastJson(out);
      const wall = j.sweep.wall_ms as number[];
      return [
        {
          bench: 'fleet-10k',
          figure: `sweep pass over ${j.nodes} nodes (${j.cameras} cameras), wall`,
          value: Math.max(...wall),
          unit: 'ms',
          baseline: { name: 'the sweep interval', value: j.interval_s * 1000, unit: 'ms' },
          ratio: 'share',
        },
        {
          bench: 'fleet-10k',
          figure: `every camera live again after a plane restart (${j.restart_reconcile.puts} streams put back)`,
          value: j.restart_reconcile.all_live_s,
          unit: 's',
          baseline: { name: 'the plane ready after its restart', value: j.restart_reconcile.ready_s, unit: 's' },
          ratio: 'times',
        },
        {
          bench: 'fleet-10k',
          figure: `GET /api/v1/cameras last page of ${j.cameras} cameras, p99`,
          value: j.camera_list.last_page.p99_ms,
          unit: 'ms',
          baseline: { name: 'the first page, p99', value: j.camera_list.first_page.p99_ms, unit: 'ms' },
          ratio: 'times',
        },
      ];
    },
  },
  // Against the fake node (a canned list), and issue 26's figure against argus-node itself (one
  // camera and 50 real viewer sessions per node).
  sessionsBench('sessions', 'fake', { NODES: '6', CAMERAS: '10' }, 'nodes', 'one fake node'),
  sessionsBench('sessions-real-nodes', 'real', { NODES: '4', CAMERAS: '25' }, 'argus-nodes', 'one argus-node'),
  {
    name: 'log-ring',
    file: 'plane/log-ring.js',
    env: { LINES: '100000', PAGES: '500' },
    figures(out) {
      const j = lastJson(out);
      return [
        {
          bench: 'log-ring',
          figure: 'plane log lines with scrub + ring capture',
          value: j.ring_lines_per_s,
          unit: 'lines/s',
          baseline: { name: 'plane pino options to a null writer', value: j.baseline_lines_per_s, unit: 'lines/s' },
          ratio: 'share',
        },
      ];
    },
  },
  {
    name: 'monitor-telemetry',
    file: 'plane/monitor-telemetry.js',
    env: { SUBSCRIBERS: '64', NODES: '100', SWEEPS: '3', INTERVAL_MS: '1000' },
    figures(out) {
      const j = lastJson(out);
      return [
        {
          bench: 'monitor-telemetry',
          figure: `node telemetry delivery p99, ${j.subscribers} subscribers x ${j.nodes} nodes`,
          value: j.delivery_ms.p99,
          unit: 'ms',
          baseline: { name: 'bare server, same bytes and sockets, p99', value: j.baseline_bare_server.p99, unit: 'ms' },
          ratio: 'times',
        },
        {
          bench: 'monitor-telemetry',
          figure: `RSS with ${j.subscribers} node-telemetry streams`,
          value: j.plane_rss_mb.end,
          unit: 'MB',
          baseline: { name: 'the same plane idle', value: j.plane_rss_mb.idle, unit: 'MB' },
          ratio: 'times',
        },
      ];
    },
  },
  {
    name: 'monitor-summary',
    file: 'plane/monitor-summary.js',
    env: { CONNECTIONS: String(CONNECTIONS), DURATION_S: '3' },
    figures(out) {
      const j = lastJson(out);
      return [
        {
          bench: 'monitor-summary',
          figure: 'GET /api/v1/monitor/fleet/summary',
          value: j.summary.rps,
          unit: 'req/s',
          baseline: { name: 'GET /health on the same process', value: j.baseline_health.rps, unit: 'req/s' },
          ratio: 'share',
        },
      ];
    },
  },
  {
    name: 'export-verify',
    file: 'plane/export-verify.js',
    env: { HOURS: '1', RUNS: '3' },
    figures(out) {
      const j = lastJson(out);
      return [
        {
          bench: 'export-verify',
          figure: `verify-export of a one-hour export (${j.mp4_mb} MB), median; target ${j.target_ms} ms`,
          value: j.verify_ms.median,
          unit: 'ms',
          baseline: { name: 'sha256 of the bare MP4', value: j.baseline_sha256_ms, unit: 'ms' },
          ratio: 'times',
        },
      ];
    },
  },
  ...WRITE_PATH_BENCHES,
  READ_REPLICA_BENCH,
];
