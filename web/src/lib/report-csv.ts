import { stringify } from 'csv-stringify/browser/esm/sync';

/** An analytics result as CSV (csv-stringify): a header, then one line per point. */
export function resultCsv(r: {
  points: Array<{
    bucket: string | null;
    key: string | null;
    label: string | null;
    value: number;
    sample_count: number;
  }>;
}): string {
  return stringify([
    ['bucket', 'key', 'label', 'value', 'sample_count'],
    ...r.points.map((p) => [p.bucket ?? '', p.key ?? '', p.label ?? '', p.value, p.sample_count]),
  ]);
}
