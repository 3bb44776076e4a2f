import { describe, expect, it } from 'vitest';
import { ReplayRing } from '../../../src/plane/live/replay-ring.js';

const f = (seq: number) => ({ seq });

describe('ReplayRing', () => {
  it('keeps the newest frames; a resume point below what it holds is told apart from one with nothing after it', () => {
    const r = new ReplayRing<{ seq: number }>(3);
    expect(r.after(0)).toEqual([]);
    for (const s of [1, 2, 4, 7]) r.push(f(s));
    expect(r.length).toBe(3);
    expect(r.base).toBe(1);
    expect(r.last).toBe(7);
    expect(r.after(0)).toBeNull();
    expect(r.after(1)).toEqual([f(2), f(4), f(7)]);
    expect(r.after(3)).toEqual([f(4), f(7)]);
    expect(r.after(7)).toEqual([]);
    expect(r.after(9)).toEqual([]);
  });

  it('reset loads frames with their floor, keeping only the newest size of them', () => {
    const r = new ReplayRing<{ seq: number }>(2);
    r.reset([f(5), f(6)], 4);
    expect([r.base, r.last]).toEqual([4, 6]);
    expect(r.after(3)).toBeNull();
    expect(r.after(4)).toEqual([f(5), f(6)]);
    r.reset([f(1), f(2), f(3)], 0);
    expect([r.base, r.last, r.length]).toEqual([1, 3, 2]);
    r.reset([], 10);
    expect([r.base, r.last]).toEqual([10, 10]);
    expect(r.after(9)).toBeNull();
  });
});
