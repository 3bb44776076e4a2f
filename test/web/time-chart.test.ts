import { describe, expect, it } from 'vitest';
import { tickTime, tickValue } from '../../web/src/components/time-chart.js';

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
    expect(tickTime(t, 30)).toBe(
      new Date(t * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }),
    );
    expect(tickTime(t, 60)).toBe(new Date(t * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }));
    expect(tickTime(t, 30)).not.toBe(tickTime(t, 60));
  });
});
