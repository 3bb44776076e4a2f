/** Every rule that depends on time (12 h sessions, 300 s grants, throttling, licence dates) reads this. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
