import { describe, expect, it } from 'vitest';
import { alertsOf, type Summary } from '../../web/src/lib/monitor-alerts.js';

const calm: Summary = {
  seq: 1,
  sampled_at: '2026-11-25T20:00:00Z',
  nodes_total: 3,
  nodes_reachable: 3,
  stream_samples_stale: 0,
  streams_total: 10,
  streams_live: 10,
  streams_degraded: 0,
  streams_failing: 0,
  cameras_total: 5,
  cameras_live: 5,
  cameras_unavailable: 0,
  cameras_degraded: 0,
  cameras_failing: 0,
  nodes_unlicensed: 0,
  nodes_grace: 0,
};

describe('alert conditions of the monitoring guidance (document 1)', () => {
  it('a calm fleet raises none', () => expect(alertsOf(calm)).toEqual([]));
  it.each([
    [{ nodes_reachable: 2 }, '1 of 3 nodes did not answer'],
    [{ streams_failing: 2 }, '2 streams failing'],
    [{ cameras_failing: 1 }, '1 cameras failing'],
    [{ cameras_unavailable: 4 }, '4 cameras unavailable'],
    [{ nodes_grace: 1 }, 'licences: 0 unlicensed, 1 in grace'],
    [{ stream_samples_stale: 1 }, '1 nodes without a stream count this sweep'],
  ] as const)('%j: %s', (change, alert) => expect(alertsOf({ ...calm, ...change })).toEqual([alert]));
  it('a stream frame without the optional counters raises only what it carries', () => {
    const { cameras_unavailable: _a, cameras_failing: _b, stream_samples_stale: _c, ...frame } = calm;
    expect(alertsOf({ ...frame, streams_failing: 1 })).toEqual(['1 streams failing']);
  });
});
