import { afterEach, describe, expect, it } from 'vitest';
import { tickTime, tickValue } from '../../web/src/components/time-chart.js';
import { BROWSER_TIME, setTimeDisplay, timeOfDay } from '../../web/src/lib/text.js';

afterEach(() => setTimeDisplay(BROWSER_TIME));

describe("the monitor charts' tick labels (issue 22: readable axes)", () => {
  it.each([
    [0, '0'],
    [3, '3'],
    [0.30000000000000004, '0.3'],
    [0.256, '0.26'],
    [12.34, '12.3'],
    [250.6, '251'],
    [1500, '1500'],
    [15_000, '15k'],
    [12_500_000, '12.5M'],
    [-0.5, '-0.5'],
  ])('%s reads %s', (v, shown) => expect(tickValue(v)).toBe(shown));

  it('times carry seconds only when the ticks are less than a minute apart', () => {
    const t = Date.UTC(2026, 10, 26, 14, 54, 30) / 1000;
    setTimeDisplay({ zone: 'UTC', clock: '24h' });
    expect(tickTime(t, 30)).toBe('14:54:30');
    expect(tickTime(t, 60)).toBe('14:54');
  });

  it("times read in the user's zone and clock (the profile's choice), not the browser's", () => {
    const t = Date.UTC(2026, 10, 26, 14, 54, 30) / 1000;
    setTimeDisplay({ zone: 'Asia/Tokyo', clock: '24h' });
    expect(tickTime(t, 60)).toBe('23:54');
    setTimeDisplay({ zone: 'America/New_York', clock: '12h' });
    expect(tickTime(t, 60)).toMatch(/^9:54\sAM$/);
    expect(timeOfDay(Number.NaN)).toBe('—');
  });
});
