import { describe, expect, it } from 'vitest';
import {
  MAX_SPAN_MS,
  MIN_SPAN_MS,
  bounded,
  centredOn,
  chunksOf,
  clusterMarkers,
  momentAtX,
  panBy,
  playRangeAround,
  thumbSecond,
  thumbStepS,
  xOfMoment,
  zoomBy,
  zoomStep,
} from '../../../web/src/lib/review-zoom.js';
import { mergeRanges } from '../../../web/src/lib/recording.js';

const NOW = Date.UTC(2026, 10, 26, 12);
const H = 3600_000;
const hourView = { fromMs: NOW - H, spanMs: H };

describe('zoom', () => {
  it('the wheel zooms around the pointer: the moment under it stays there', () => {
    const anchor = NOW - H / 4;
    const z = zoomBy(hourView, 0.5, anchor, NOW);
    expect(z.spanMs).toBe(H / 2);
    expect(xOfMoment(z, anchor, 1000)).toBeCloseTo(xOfMoment(hourView, anchor, 1000), 6);
  });
  it('stays within 5 minutes and 7 days', () => {
    expect(zoomBy(hourView, 0.001, NOW - H / 2, NOW).spanMs).toBe(MIN_SPAN_MS);
    expect(zoomBy(hourView, 1e6, NOW - H / 2, NOW).spanMs).toBe(MAX_SPAN_MS);
  });
  it('the buttons step through 5 min ... 7 days, centred on the playhead', () => {
    const spans: number[] = [];
    let v = { fromMs: NOW - 10 * H, spanMs: MIN_SPAN_MS };
    for (let i = 0; i < 10; i++) {
      v = zoomStep(v, 1, NOW - 10 * 86_400_000, NOW);
      spans.push(v.spanMs / 60_000);
    }
    expect(spans).toEqual([15, 60, 180, 360, 720, 1440, 4320, 10080, 10080, 10080]);
    const inward = zoomStep(hourView, -1, NOW - 2 * H, NOW);
    expect(inward.spanMs).toBe(15 * 60_000);
    expect(inward.fromMs + inward.spanMs / 2).toBe(NOW - 2 * H);
    expect(zoomStep({ fromMs: NOW - H, spanMs: MIN_SPAN_MS }, -1, NOW - H, NOW).spanMs).toBe(MIN_SPAN_MS);
  });
  it('a view cannot run further than a twentieth of its span (at most 30 min) past now', () => {
    const v = bounded({ fromMs: NOW, spanMs: H }, NOW);
    expect(v.fromMs + v.spanMs).toBe(NOW + H / 20);
    // A week's view: half an hour, not eight.
    const week = bounded({ fromMs: NOW, spanMs: MAX_SPAN_MS }, NOW);
    expect(week.fromMs + week.spanMs).toBe(NOW + H / 2);
  });
});

describe('drag and pointer', () => {
  it('dragging right shows earlier time, by the dragged share of the span', () => {
    expect(panBy(hourView, 250, 1000, NOW).fromMs).toBe(hourView.fromMs - H / 4);
    // Dragged left past now, it stops at the bound.
    expect(panBy(hourView, -900, 1000, NOW).fromMs + H).toBe(NOW + H / 20);
  });
  it('pixel <-> moment', () => {
    expect(momentAtX(hourView, 500, 1000)).toBe(NOW - H / 2);
    expect(xOfMoment(hourView, NOW - H / 2, 1000)).toBe(500);
    expect(centredOn(NOW - 5 * H, H, NOW)).toEqual({ fromMs: NOW - 5.5 * H, spanMs: H });
  });
});

describe('what is read for a view', () => {
  it('hour chunks for an hour, six hours up to six, days beyond; none past now', () => {
    expect(chunksOf({ fromMs: NOW - 90 * 60_000, spanMs: H }, NOW)).toEqual([
      { from: (NOW - 2 * H) / 1000, duration: 3600 },
      { from: (NOW - H) / 1000, duration: 3600 },
    ]);
    expect(chunksOf({ fromMs: NOW - 3 * H, spanMs: 3 * H }, NOW)).toEqual([
      { from: (NOW - 6 * H) / 1000, duration: 21_600 },
    ]);
    const week = chunksOf({ fromMs: NOW - 7 * 86_400_000, spanMs: 7 * 86_400_000 }, NOW);
    expect(week).toHaveLength(8);
    expect(week.every((c) => c.duration === 86_400 && c.from % 86_400 === 0)).toBe(true);
  });
  it('the player plays the hour of the moment and the hour before', () => {
    expect(playRangeAround(NOW + 30 * 60_000)).toEqual({ from: (NOW - H) / 1000, duration: 7200 });
  });
  it('thumbnails are asked on a step of about four pixels, rounded to a whole step', () => {
    expect(thumbStepS(MIN_SPAN_MS, 1200)).toBe(1);
    expect(thumbStepS(H, 1200)).toBe(15);
    expect(thumbStepS(MAX_SPAN_MS, 1200)).toBe(3600);
    expect(thumbSecond(NOW + 7_900, 5)).toBe(NOW / 1000 + 5);
  });
});

describe('markers', () => {
  const m = (id: string, atMs: number) => ({ id, atMs, name: id });
  it('closer than 10 px they cluster with a count; apart they stay one each; outside the view they are left out', () => {
    // 1000 px for an hour: 3.6 s a pixel.
    const clusters = clusterMarkers(
      [
        m('c', NOW - H / 2 + 20_000),
        m('a', NOW - H / 2),
        m('b', NOW - H / 2 + 10_000),
        m('d', NOW - 600_000),
        m('x', NOW - 2 * H),
      ],
      hourView,
      1000,
    );
    expect(clusters.map((c) => c.markers.map((x) => x.id))).toEqual([['a', 'b', 'c'], ['d']]);
    expect(clusters[0]!.atMs).toBe(NOW - H / 2);
  });
  it('zoomed in, the same markers part', () => {
    const five = { fromMs: NOW - H / 2 - 60_000, spanMs: MIN_SPAN_MS };
    const clusters = clusterMarkers([m('a', NOW - H / 2), m('b', NOW - H / 2 + 10_000)], five, 1000);
    expect(clusters).toHaveLength(2);
  });
});

describe('ranges read in chunks', () => {
  it('join where a chunk ends inside a range; a real gap stays', () => {
    expect(
      mergeRanges([
        { fromMs: NOW, toMs: NOW + H },
        { fromMs: NOW - H, toMs: NOW },
        { fromMs: NOW + H + 60_000, toMs: NOW + 2 * H },
      ]),
    ).toEqual([
      { fromMs: NOW - H, toMs: NOW + H },
      { fromMs: NOW + H + 60_000, toMs: NOW + 2 * H },
    ]);
    expect(mergeRanges([])).toEqual([]);
  });
});
