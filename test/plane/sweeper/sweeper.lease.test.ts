import { describe, expect, it } from 'vitest';
import { sweeperWorld, SWEEP_MS } from './sweeper.world.js';

const w = sweeperWorld();

describe('sweeper: one process sweeps at a time (the lease)', () => {
  it('two plane instances on one database: each node is polled once per sweep; when the holder dies the other takes over', async () => {
    const second = await w.secondPlane();
    try {
      const n = await w.node([[w.x.a.admin, 1]]);
      n.fake.stream(n.cameras[0]!, 'live');
      const gets = () => n.fake.requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/system').length;
      const a = w.t.plane.services.sweeper;
      const b = second.plane.plane.services.sweeper;
      w.clock.advance(SWEEP_MS);
      expect((await a.sweep()).polled).toBe(1);
      for (let i = 2; i <= 4; i++) {
        w.clock.advance(SWEEP_MS);
        // Together: the holder (the first, which swept first) polls, the other polls nothing.
        const [ra, rb] = await Promise.all([a.sweep(), b.sweep()]);
        expect([ra.polled, rb.polled]).toEqual([1, 0]);
        expect(gets()).toBe(i);
      }
      expect(await w.status(w.x.a.admin, n.cameras[0]!)).toBe('live');
      // The holder dies (sweeps no more): within three intervals its lease runs out and the second sweeps.
      let took = -1;
      for (let i = 1; i <= 4 && took < 0; i++) {
        w.clock.advance(SWEEP_MS);
        if ((await b.sweep()).polled > 0) took = i;
      }
      expect(took).toBe(3);
      expect(gets()).toBe(5);
      // The first, back, finds the lease taken.
      w.clock.advance(SWEEP_MS);
      expect((await a.sweep()).polled).toBe(0);
      // A holder that stops gives the lease up: the other sweeps at its next sweep.
      await b.release();
      w.clock.advance(SWEEP_MS);
      expect((await a.sweep()).polled).toBe(1);
    } finally {
      await second.close();
    }
  });
});
