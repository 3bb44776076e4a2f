import { describe, expect, it } from 'vitest';
import { resultCsv } from '../../web/src/lib/report-csv.js';

describe('a result as CSV', () => {
  it('a header and a line per point; commas, quotes and line breaks quoted', () => {
    const csv = resultCsv({
      points: [
        { bucket: '2026-11-25T10:00:00Z', key: 'lpr.plate', label: 'Plate, "front"', value: 3, sample_count: 3 },
        { bucket: null, key: null, label: 'two\nlines', value: 1.5, sample_count: 2 },
      ],
    });
    expect(csv).toBe(
      'bucket,key,label,value,sample_count\n2026-11-25T10:00:00Z,lpr.plate,"Plate, ""front""",3,3\n,,"two\nlines",1.5,2\n',
    );
  });
});
