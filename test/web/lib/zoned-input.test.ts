import { describe, expect, it } from 'vitest';
import { fromZonedInput, zonedInput } from '../../../web/src/lib/zoned-input.js';

describe('datetime-local in the user zone', () => {
  const t = Date.parse('2026-11-26T14:05:03Z');
  it('writes and reads a moment in the chosen zone, whatever the browser zone', () => {
    expect(zonedInput(t, 'Asia/Tokyo')).toBe('2026-11-26T23:05:03');
    expect(zonedInput(t, 'America/New_York')).toBe('2026-11-26T09:05:03');
    expect(fromZonedInput('2026-11-26T23:05:03', 'Asia/Tokyo')).toBe(t);
    expect(fromZonedInput('2026-11-26T09:05', 'America/New_York')).toBe(t - 3000);
    expect(fromZonedInput(zonedInput(t, null), null)).toBe(t);
  });
  it('lands on the right side of a daylight-saving change', () => {
    // Europe/Paris left summer time at 03:00 CEST on 25 Oct 2026 (01:00 UTC).
    expect(fromZonedInput('2026-10-25T04:00:00', 'Europe/Paris')).toBe(Date.parse('2026-10-25T03:00:00Z'));
    expect(fromZonedInput('2026-10-24T23:00:00', 'Europe/Paris')).toBe(Date.parse('2026-10-24T21:00:00Z'));
    expect(fromZonedInput('2026-03-29T12:00:00', 'Europe/Paris')).toBe(Date.parse('2026-03-29T10:00:00Z'));
  });
  it('answers null for what is not a moment', () => {
    expect(fromZonedInput('', 'UTC')).toBeNull();
    expect(fromZonedInput('tomorrow', 'UTC')).toBeNull();
    expect(zonedInput(Number.NaN, 'UTC')).toBe('');
  });
});
