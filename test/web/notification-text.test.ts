import { describe, expect, it } from 'vitest';
import {
  channelTarget,
  cooldownText,
  daysText,
  listOf,
  matchSummary,
  scheduleSummary,
  testOutcome,
} from '../../web/src/lib/notification-text.js';

// The notification pages' words (issue 24): lists as typed, days as ranges, a rule in one line.

describe('notification words', () => {
  it('a typed list: commas or lines, trimmed, each once', () => {
    expect(listOf(' a@x.org,\nb@x.org ,, a@x.org\n')).toEqual(['a@x.org', 'b@x.org']);
    expect(listOf('')).toEqual([]);
  });

  it('days as ranges of names', () => {
    expect(daysText([1, 2, 3, 4, 5])).toBe('Mon–Fri');
    expect(daysText([7, 6, 1, 3])).toBe('Mon, Wed, Sat, Sun');
    expect(daysText([1, 2, 3, 4, 5, 6, 7])).toBe('every day');
    expect(daysText([5, 6, 7, 1])).toBe('Mon, Fri–Sun');
  });

  it('a schedule, a cooldown, a channel target, a test outcome', () => {
    expect(scheduleSummary(null)).toBe('always');
    expect(
      scheduleSummary({
        timezone: 'America/New_York',
        windows: [
          { days: [6, 7], from: '00:00', to: '23:59' },
          { days: [1], from: '22:00', to: '06:00' },
        ],
      }),
    ).toBe('Sat, Sun 00:00–23:59; Mon 22:00–06:00 (America/New_York)');
    expect([0, 45, 300, 7200, 90].map(cooldownText)).toEqual([
      'none',
      '45 seconds',
      '5 minutes',
      '2 hours',
      '90 seconds',
    ]);
    expect(channelTarget({ kind: 'mqtt', url: 'mqtt://b:1883', topic: 't/{camera}' })).toBe('mqtt://b:1883 t/{camera}');
    expect(testOutcome({ state: 'dead', last_error: null })).toBe(
      'The test message was not delivered: the receiver refused it.',
    );
  });

  it('a rule in one line: cameras by name when all are known, else counted', () => {
    const m = {
      detectors: ['lpr.*'],
      severity_min: 0,
      camera_ids: ['c1', 'c2'],
      tag_ids: ['t'],
      categories: ['access'],
      open_only: true,
    };
    const names: Record<string, string> = { c1: 'Gate', c2: 'Yard' };
    expect(matchSummary(m, (id) => names[id])).toBe(
      'any severity; detectors lpr.*; categories access; on Gate, Yard; cameras with 1 tag; open intervals only',
    );
    expect(matchSummary({ ...m, camera_ids: ['c1', 'gone'] }, (id) => names[id])).toContain('on 2 cameras');
  });
});
