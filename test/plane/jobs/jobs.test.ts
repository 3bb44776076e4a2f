import { expect, it } from 'vitest';
import pino from 'pino';
import { JobRunner } from '../../../src/plane/jobs/jobs.js';

it('counts a failing run and keeps the runner alive; passes a deadline within the budget', async () => {
  let now = 1_000;
  const runner = new JobRunner(pino({ level: 'silent' }), () => now);
  let deadline = 0;
  await runner.runOnce({ name: 'ok', everyMs: 10, budgetMs: 500, run: async (d) => { deadline = d; } });
  await runner.runOnce({ name: 'bad', everyMs: 10, budgetMs: 500, run: async () => { throw new Error('boom'); } });
  now = 2_000;
  await runner.runOnce({ name: 'bad', everyMs: 10, budgetMs: 500, run: async () => { throw new Error('boom'); } });
  expect(deadline).toBe(1_500);
  const bad = runner.list().find((j) => j.name === 'bad')!;
  expect(bad).toMatchObject({ runs: 2, failures: 2, last_error: 'boom', last_run_ms: 2_000 });
  expect(runner.list().find((j) => j.name === 'ok')).toMatchObject({ runs: 1, failures: 0, last_error: null });
});
