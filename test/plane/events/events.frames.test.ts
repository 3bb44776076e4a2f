import { describe, expect, it } from 'vitest';
import {
  FRAME_BOUND_BYTES,
  NOTIFY_BOUND_BYTES,
  batchNotice,
  boundFrame,
  frameJson,
  type EventFrame,
} from '../../../src/plane/events/log/events.frames.js';

const frame = (over: Partial<EventFrame> = {}): EventFrame => ({
  seq: 1,
  id: '0190a6e0-0000-7000-8000-000000000001',
  occurred_at: '2026-01-01T00:00:00.000Z',
  ended_at: null,
  org_id: '11111111-1111-4111-8111-111111111111',
  camera_id: '22222222-2222-4222-8222-222222222222',
  camera_name: 'gate',
  node_id: null,
  node_name: null,
  detector: 'lpr.plate',
  detector_title: null,
  category: 'camera',
  severity: 1,
  template_id: null,
  interval: false,
  confidence: 0.5,
  subject_type: 'plate',
  subject_ref: 'AB123',
  ext_id: null,
  list_values: [],
  starred: false,
  updated: false,
  deleted: false,
  ...over,
});

describe('frame bound without encoding', () => {
  it('keeps exactly the frames whose JSON fits 8 KiB, whatever their texts (escapes, multi-byte, titles, list values)', () => {
    const texts = (n: number) => [
      'a'.repeat(n),
      '\u0001'.repeat(n),
      '"'.repeat(n),
      '\u00e9'.repeat(n),
      '\u20ac'.repeat(n),
      '\u{1F600}'.repeat(Math.ceil(n / 2)),
    ];
    let kept = 0,
      cut = 0;
    for (const n of [10, 200, 256, 600, 1000, 1300, 2000, 4000]) {
      for (const t of texts(n)) {
        for (const f of [
          frame({ subject_ref: t }),
          frame({ detector: t, ext_id: t.slice(0, 128) }),
          frame({ detector_title: t }),
          frame({ detector_title: { en: t, de: t.slice(0, 50) } }),
          frame({ list_values: [t] }),
          frame({ camera_name: t, node_name: t }),
        ]) {
          const fits = Buffer.byteLength(JSON.stringify(f)) <= FRAME_BOUND_BYTES;
          const b = boundFrame(f);
          expect(b === f).toBe(fits);
          if (fits) kept++;
          else {
            cut++;
            expect(b.reconcile_required).toBe(true);
          }
        }
      }
    }
    expect(kept).toBeGreaterThan(0);
    expect(cut).toBeGreaterThan(0);
  });

  it('a notice carries the frames inline exactly when they fit, with the JSON each frame is sent with', () => {
    for (const n of [1, 5, 15, 17, 18, 19, 20, 30]) {
      const frames = Array.from({ length: n }, (_, i) => frame({ seq: 10 + i }));
      const text = batchNotice(10, 10 + n - 1, frames);
      const inline = `{"from":10,"to":${10 + n - 1},"frames":[${frames.map((f) => JSON.stringify(f)).join(',')}]}`;
      if (Buffer.byteLength(inline) <= NOTIFY_BOUND_BYTES) expect(text).toBe(inline);
      else expect(JSON.parse(text)).toEqual({ from: 10, to: 10 + n - 1, seqs: [[10, 10 + n - 1]] });
      for (const f of frames) expect(frameJson(f)).toBe(JSON.stringify(f));
    }
    expect(JSON.parse(batchNotice(5, 5, [frame({ seq: 5 })], { purge_day: '20260101' }))).toEqual({
      from: 5,
      to: 5,
      frames: [frame({ seq: 5 })],
      purge_day: '20260101',
    });
  });
});
