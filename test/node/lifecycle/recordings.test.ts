import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { Recordings } from '../../../src/node/lifecycle/recordings.js';

describe('recording stop grace', () => {
  it('returns as soon as every recording has closed', async () => {
    const r = new Recordings();
    let closed = 0;
    r.add({
      stream: 'a',
      close: async () => {
        await sleep(30);
        closed++;
      },
    });
    r.add({
      stream: 'b',
      close: async () => {
        await sleep(60);
        closed++;
      },
    });
    const t0 = Date.now();
    expect(await r.closeAll(5000)).toBe(0);
    const took = Date.now() - t0;
    expect(closed).toBe(2);
    expect(took).toBeGreaterThanOrEqual(55);
    expect(took).toBeLessThan(1000);
    expect(r.count).toBe(0);
  });

  it('gives up after the grace and reports what stayed open', async () => {
    const r = new Recordings();
    r.add({ stream: 'stuck', close: () => new Promise(() => {}) });
    r.add({ stream: 'quick', close: async () => {} });
    const t0 = Date.now();
    expect(await r.closeAll(200)).toBe(1);
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(195);
    expect(took).toBeLessThan(1000);
  });

  it('nothing open: nothing to wait for', async () => {
    expect(await new Recordings().closeAll()).toBe(0);
  });

  it('a removed recording is not waited for', async () => {
    const r = new Recordings();
    const remove = r.add({ stream: 'a', close: () => new Promise(() => {}) });
    remove();
    expect(await r.closeAll(10_000)).toBe(0);
  });
});
