import { describe, expect, it } from 'vitest';
import { alertsOf, namesOf, type Named, type Summary } from '../../web/src/lib/monitor-alerts.js';

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
    [{ cameras_failing: 1 }, '1 camera failing'],
    [{ cameras_unavailable: 4 }, '4 cameras unavailable'],
    [{ nodes_grace: 1 }, 'licences: 0 unlicensed, 1 in grace'],
    [{ stream_samples_stale: 1 }, '1 node without a stream count this sweep'],
  ] as const)('%j: %s', (change, alert) => expect(alertsOf({ ...calm, ...change })).toEqual([alert]));
  it('a stream frame without the optional counters raises only what it carries', () => {
    const { cameras_unavailable: _a, cameras_failing: _b, stream_samples_stale: _c, ...frame } = calm;
    expect(alertsOf({ ...frame, streams_failing: 1 })).toEqual(['1 stream failing']);
  });
});

describe('alerts name the cameras and nodes they count (issue 22)', () => {
  const telemetry = (failing: number) => ({ stream_counts: { total: 4, live: 4 - failing, degraded: 0, failing } });
  const fleet: Named = {
    nodes: [
      { id: 'n1', name: 'node-east', state: 'reachable' },
      { id: 'n2', name: 'node-west', state: 'unreachable' },
      { id: 'n3', name: 'node-north', state: 'reachable' },
    ],
    frames: {
      n1: { reachable: true, system_telemetry: telemetry(2) },
      n2: { reachable: false, system_telemetry: null },
      n3: { reachable: true, system_telemetry: null },
    },
    cameras: [
      { name: 'Gate north', status: 'failing' },
      { name: 'Dock', status: 'unavailable' },
      { name: 'Lobby', status: 'live' },
    ],
    licences: { n1: 'ok', n2: 'grace', n3: 'unlicensed' },
  };
  it.each([
    [{ nodes_reachable: 2 }, '1 of 3 nodes did not answer: node-west'],
    [{ streams_failing: 2 }, '2 streams failing: on node-east (2)'],
    [{ cameras_failing: 1 }, '1 camera failing: Gate north'],
    [{ cameras_unavailable: 1 }, '1 camera unavailable: Dock'],
    [{ nodes_grace: 1, nodes_unlicensed: 1 }, 'licences: 1 unlicensed (node-north), 1 in grace (node-west)'],
    [{ stream_samples_stale: 1 }, '1 node without a stream count this sweep: node-north'],
  ] as const)('%j: %s', (change, alert) => expect(alertsOf({ ...calm, ...change }, fleet)).toEqual([alert]));

  it("a node without a frame yet is named by the list's state", () => {
    const { frames: _f, ...noFrames } = fleet;
    expect(alertsOf({ ...calm, nodes_reachable: 2 }, noFrames)).toEqual(['1 of 3 nodes did not answer: node-west']);
  });

  it('at most five names, then how many more', () => {
    expect(namesOf(['a', 'b', 'c', 'd', 'e'])).toBe('a, b, c, d, e');
    expect(namesOf(['a', 'b', 'c', 'd', 'e', 'f', 'g'])).toBe('a, b, c, d, e and 2 more');
    const many = Array.from({ length: 40 }, (_, i) => ({ name: `cam-${i}`, status: 'failing' }));
    expect(alertsOf({ ...calm, cameras_failing: 40 }, { cameras: many })).toEqual([
      '40 cameras failing: cam-0, cam-1, cam-2, cam-3, cam-4 and 35 more',
    ]);
  });
});
