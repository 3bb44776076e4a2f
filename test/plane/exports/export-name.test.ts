import { describe, expect, it } from 'vitest';
import {
  contentDisposition,
  durationWords,
  exportFileName,
  safeNamePart,
  wallClock,
} from '../../../src/plane/exports/export-name.js';

const at = (text: string) => Date.parse(text);

describe('export file names', () => {
  it('read <camera name>_<YYYY-MM-DD_HH-MM-SS>_<duration> in the given zone', () => {
    expect(exportFileName('Gate', at('2026-06-01T08:05:09Z'), 90, 'UTC', 'mp4')).toBe(
      'Gate_2026-06-01_08-05-09_1m30s.mp4',
    );
    expect(exportFileName('Gate', at('2026-06-01T08:05:09Z'), 3600, 'Asia/Tokyo', 'zip')).toBe(
      'Gate_2026-06-01_17-05-09_1h.zip',
    );
    expect(exportFileName('Gate', at('2026-06-01T23:30:00Z'), 60, 'Asia/Kolkata', 'mp4')).toBe(
      'Gate_2026-06-02_05-00-00_1m.mp4',
    );
  });

  it('follow the zone across its DST changes: spring forward, and the repeated autumn hour', () => {
    // Europe/Paris, 2026-03-29: 01:59:59 CET is followed by 03:00:00 CEST.
    expect(wallClock(at('2026-03-29T00:59:59Z'), 'Europe/Paris')).toBe('2026-03-29_01-59-59');
    expect(wallClock(at('2026-03-29T01:00:00Z'), 'Europe/Paris')).toBe('2026-03-29_03-00-00');
    // 2026-10-25: 02:30 happens twice, an hour apart in UTC.
    expect(wallClock(at('2026-10-25T00:30:00Z'), 'Europe/Paris')).toBe('2026-10-25_02-30-00');
    expect(wallClock(at('2026-10-25T01:30:00Z'), 'Europe/Paris')).toBe('2026-10-25_02-30-00');
    // Midnight is 00, never 24.
    expect(wallClock(at('2026-07-01T22:00:00Z'), 'Europe/Paris')).toBe('2026-07-02_00-00-00');
  });

  it('write the duration in its units that are not zero', () => {
    expect([45, 60, 90, 300, 3600, 5400, 3605, 86_400, 7325].map(durationWords)).toEqual([
      '45s',
      '1m',
      '1m30s',
      '5m',
      '1h',
      '1h30m',
      '1h5s',
      '24h',
      '2h2m5s',
    ]);
  });

  it('keep spaces and letters of any script, and replace what no file system takes', () => {
    expect(safeNamePart('Front door')).toBe('Front door');
    expect(safeNamePart('Café Łódź 東京')).toBe('Café Łódź 東京');
    expect(safeNamePart('Gate "North" / A:B\\C*?<>|')).toBe('Gate _North_ _ A_B_C_____');
    expect(safeNamePart('a\nb\u0000c\u202ed')).toBe('a_b_c_d');
    expect(safeNamePart('..hidden')).toBe('_hidden');
    expect(safeNamePart('trailing. . ')).toBe('trailing');
    expect(safeNamePart('   ')).toBe('camera');
    expect([...safeNamePart('é'.repeat(300))].length).toBe(100);
  });

  it('go into Content-Disposition as an ASCII filename and, when it differs, a UTF-8 filename*', () => {
    expect(contentDisposition('Gate_2026-06-01_08-05-09_1m30s.mp4')).toBe(
      'attachment; filename="Gate_2026-06-01_08-05-09_1m30s.mp4"',
    );
    expect(contentDisposition("Front door's (east)*_2026.mp4")).toBe(
      'attachment; filename="Front door\'s (east)*_2026.mp4"',
    );
    const d = contentDisposition("Café l'été (1)_2026.zip");
    expect(d).toBe(
      `attachment; filename="Caf_ l'_t_ (1)_2026.zip"; filename*=UTF-8''Caf%C3%A9%20l%27%C3%A9t%C3%A9%20%281%29_2026.zip`,
    );
    // What a browser decodes is the name, byte for byte.
    expect(decodeURIComponent(d.split("UTF-8''")[1]!)).toBe("Café l'été (1)_2026.zip");
    expect(contentDisposition('東京.mp4')).toBe(
      `attachment; filename="__.mp4"; filename*=UTF-8''%E6%9D%B1%E4%BA%AC.mp4`,
    );
  });
});
