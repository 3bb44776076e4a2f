import { afterAll, beforeAll } from 'vitest';
import { ManualClock, startPlane, type TestPlane } from '../harness.js';
import { login, type Client } from '../client.js';
import { startNode, type RunningNode } from '../../node/helpers/node-process.js';
import { MEDIA_ENV, stopAndReap } from '../../node/media/media-helpers.js';

export const SWEEP_MS = 5000;

/**
 * A plane on a manual clock with its sweeper driven by hand, and the real argus-node executable
 * that a test starts and stops (the process tests of the sweeper). Registers the hooks of the
 * file that calls it; `node()` is the one running now, reaped after the file.
 */
export function realNodeWorld(timeoutMs: number) {
  const w = {} as { t: TestPlane; root: Client; clock: ManualClock };
  let running: RunningNode | undefined;
  beforeAll(async () => {
    w.clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
    w.t = await startPlane({
      clock: w.clock,
      config: { sweeper: { enabled: false, intervalMs: SWEEP_MS, timeoutMs, concurrency: 4 } },
    });
    w.root = await login(w.t.plane.app);
  });
  afterAll(async () => {
    await stopAndReap(running);
    await w.t?.close();
  });
  return {
    get t() {
      return w.t;
    },
    get root() {
      return w.root;
    },
    /** One sweep, a sweep interval later on the plane's clock. */
    sweep() {
      w.clock.advance(SWEEP_MS);
      return w.t.plane.services.sweeper.sweep();
    },
    async startNode(config: string | null, opts: { dir: string; port: number }): Promise<RunningNode> {
      running = await startNode(config, { ...opts, env: MEDIA_ENV });
      return running;
    },
    async stopNode(): Promise<void> {
      await stopAndReap(running);
      running = undefined;
    },
  };
}
