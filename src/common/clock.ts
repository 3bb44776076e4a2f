/**
 * Time as the rules see it: sessions, grants, throttles, licence dates, jobs. One interface for the
 * plane and the node; tests swap in a ManualClock to cross 12 h or midnight UTC without sleeping.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export class ManualClock implements Clock {
  constructor(private t: number = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  set(t: number | Date): void {
    this.t = typeof t === 'number' ? t : t.getTime();
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
