import { lastJson, type Bench } from './bench-spec.js';

/** Issue 26: the read-replica bench (bench/plane/read-replica.ts), each figure beside the primary alone of the same run. */
export const READ_REPLICA_BENCH: Bench = {
  name: 'read-replica',
  file: 'plane/read-replica.js',
  env: { EVENTS: '10000', WORKERS: '4', CONCURRENCY: '8', DURATION_S: '3' },
  figures(out) {
    const j = lastJson(out);
    const base = (name: string, value: number, unit: string) => ({ name: `primary only, ${name}`, value, unit });
    const [p, r] = [j.primary_only, j.with_replica];
    return [
      {
        bench: 'read-replica',
        figure: 'analytics batches (4 queries) with a replica',
        value: r.batches_per_s,
        unit: 'batches/s',
        baseline: base('batches', p.batches_per_s, 'batches/s'),
        ratio: 'share',
      },
      {
        bench: 'read-replica',
        figure: 'feed pages (100 rows) with a replica',
        value: r.feed_pages_per_s,
        unit: 'pages/s',
        baseline: base('pages', p.feed_pages_per_s, 'pages/s'),
        ratio: 'share',
      },
      {
        bench: 'read-replica',
        figure: 'intake under analytics load with a replica',
        value: r.intake_under_analytics_events_per_s,
        unit: 'events/s',
        baseline: { name: 'intake alone, same process', value: r.intake_alone_events_per_s, unit: 'events/s' },
        ratio: 'share',
      },
      {
        bench: 'read-replica',
        figure: 'intake under analytics load, primary only',
        value: p.intake_under_analytics_events_per_s,
        unit: 'events/s',
        baseline: { name: 'intake alone, same process', value: p.intake_alone_events_per_s, unit: 'events/s' },
        ratio: 'share',
      },
    ];
  },
};
