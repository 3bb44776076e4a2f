import { afterEach, expect, it, vi } from 'vitest';
import pino from 'pino';
import { JobRunner } from '../../../src/plane/jobs/jobs.js';
import { ManualClock } from '../../../src/common/clock.js';

it('counts a failing run and keeps the runner alive; passes a deadline within the budget', async () => {
  let now = 1_000;
  const runner = new JobRunner(pino({ level: 'silent' }), { now: () => now });
  let deadline = 0;
  await runner.runOnce({
    name: 'ok',
    everyMs: 10,
    budgetMs: 500,
    run: async (d) => {
      deadline = d;
    },
  });
  await runner.runOnce({
    name: 'bad',
    everyMs: 10,
    budgetMs: 500,
    run: async () => {
      throw new Error('boom');
    },
  });
  now = 2_000;
  await runner.runOnce({
    name: 'bad',
    everyMs: 10,
    budgetMs: 500,
    run: async () => {
      throw new Error('boom');
    },
  });
  expect(deadline).toBe(1_500);
  const bad = runner.list().find((j) => j.name === 'bad')!;
  expect(bad).toMatchObject({ runs: 2, failures: 2, last_error: 'boom', last_run_ms: 2_000 });
  expect(runner.list().find((j) => j.name === 'ok')).toMatchObject({ runs: 1, failures: 0, last_error: null });
  // The settings' failed_jobs count the named jobs whose last run failed: 'bad', not 'ok'.
  expect(runner.failedJobs()).toBe(1);
});

afterEach(() => {
  vi.useRealTimers();
});

it('a fixed-rate job starts its runs everyMs apart whatever a run takes; another waits everyMs after each run', async () => {
  // Fake timers and Date: the 1.3 s of cadence pass at once instead of being slept out.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const runner = new JobRunner(pino({ level: 'silent' }));
  const starts: Record<string, number[]> = { fixed: [], after: [] };
  const run = (name: string) => async () => {
    starts[name]!.push(Date.now());
    await new Promise((r) => setTimeout(r, 150));
  };
  runner.start({ name: 'fixed', everyMs: 200, budgetMs: 1000, fixedRate: true, run: run('fixed') });
  runner.start({ name: 'after', everyMs: 200, budgetMs: 1000, run: run('after') });
  await vi.advanceTimersByTimeAsync(1300);
  runner.stop();
  const gaps = (xs: number[]) => xs.slice(1).map((x, i) => x - xs[i]!);
  // fixed: ~200 ms apart; after: ~350 ms (150 ms run + 200 ms wait)
  expect(Math.max(...gaps(starts.fixed!))).toBeLessThan(330);
  expect(Math.min(...gaps(starts.after!))).toBeGreaterThanOrEqual(345);
  expect(starts.fixed!.length).toBeGreaterThan(starts.after!.length);
});

it('a fixed-rate job keeps its cadence when the wall clock steps back during a run', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const clock = new ManualClock(10_000_000);
  const runner = new JobRunner(pino({ level: 'silent' }), clock);
  let runs = 0;
  runner.start({
    name: 'marks',
    everyMs: 1000,
    budgetMs: 3000,
    fixedRate: true,
    run: async () => {
      runs++;
      // The machine's clock corrected by ten minutes backwards while this run was going.
      if (runs === 1) clock.advance(-600_000);
    },
  });
  await vi.advanceTimersByTimeAsync(3500);
  runner.stop();
  // Runs at 0, 1, 2 and 3 s (before: the second waited the ten minutes).
  expect(runs).toBe(4);
});

it('reads the injected clock for deadlines and run times; a runner stopped before the start-up finished starts nothing', async () => {
  const clock = new ManualClock(5_000);
  const runner = new JobRunner(pino({ level: 'silent' }), clock);
  let deadline = 0;
  await runner.runOnce({
    name: 'timed',
    everyMs: 10,
    budgetMs: 250,
    run: async (d) => {
      deadline = d;
      clock.advance(100);
    },
  });
  expect(deadline).toBe(5_250);
  expect(runner.list()[0]).toMatchObject({ name: 'timed', last_run_ms: 5_100 });
  runner.stop();
  let ran = false;
  runner.start({
    name: 'late',
    everyMs: 10,
    budgetMs: 10,
    run: async () => {
      ran = true;
    },
  });
  await new Promise((r) => setTimeout(r, 50));
  expect(ran).toBe(false);
  expect(runner.list().map((j) => j.name)).toEqual(['timed']);
});
