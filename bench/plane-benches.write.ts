import { CONNECTIONS, lastJson, type Bench } from './bench-spec.js';

/**
 * Issue 26: single-event intake (bench/plane/intake-single.ts) beside a minimal Fastify handler
 * on node-postgres that inserts one row per request, on the same database in the same run.
 */
export const INTAKE_SINGLE_BENCH: Bench = {
  name: 'intake-single',
  file: 'plane/intake-single.js',
  env: { SINGLE_MS: '3000', ROUNDS: '2', FIRST_WARMUP_MS: '3000' },
  figures(out) {
    const j = lastJson(out);
    return [
      {
        bench: 'intake-single',
        figure: 'POST /api/v1/events, batches of 1, 32 connections; target >= 70% of the minimal handler',
        value: j.plane.events_per_s,
        unit: `events/s (plane CPU ${Math.round(j.plane.cpu_us)} µs/event)`,
        baseline: {
          name: 'minimal Fastify + pg handler, one insert per request',
          value: j.minimal.events_per_s,
          unit: `events/s (${Math.round(j.minimal.cpu_us)} µs/event)`,
        },
        ratio: 'share',
      },
    ];
  },
};

/** Issue 24: notifications (bench/plane/notifications.ts) after the other plane benches. */
export const WRITE_PATH_BENCHES: Bench[] = [
  {
    name: 'notifications',
    file: 'plane/notifications.js',
    env: {
      DURATION_S: '10',
      THROUGHPUT_MS: '3000',
      WRITE_ROUNDS: '1',
      BACKLOG: '1000',
      CONCURRENCY: String(CONNECTIONS),
    },
    figures(out) {
      const j = lastJson(out);
      return [
        {
          bench: 'notifications',
          figure: 'delivery p95 from commit, 200 events/s; target < 1000 ms',
          value: j.latency_ms.p95,
          unit: 'ms',
        },
        {
          bench: 'notifications',
          figure: 'intake with three rules on a process that does not deliver; target >= 90% of without',
          value: j.write_with_rules,
          unit: 'events/s',
          baseline: { name: 'the same with the rules disabled', value: j.write_without_rules, unit: 'events/s' },
          ratio: 'share',
        },
        {
          bench: 'notifications',
          figure: 'intake with three rules, every delivery sent by the same process meanwhile',
          value: j.intake_with_rules,
          unit: 'events/s',
          baseline: { name: 'intake with the rules disabled', value: j.intake_without_rules, unit: 'events/s' },
          ratio: 'share',
        },
        {
          bench: 'notifications',
          figure: 'backlog drain after an outage',
          value: j.backlog.drain_per_s,
          unit: 'deliveries/s',
        },
      ];
    },
  },
];
