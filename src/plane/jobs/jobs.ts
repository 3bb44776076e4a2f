import type { Logger } from 'pino';
import { systemClock, type Clock } from '../../common/clock.js';

/** A named background job: idempotent, so a missed or repeated run does no harm. */
export interface Job {
  name: string;
  everyMs: number;
  /** Work that should stop (and resume next run) once `deadline` (epoch ms) passes. */
  run(deadline: number): Promise<void>;
  budgetMs: number;
  /** Start runs `everyMs` apart (a run that takes longer starts the next at once), not `everyMs` after the previous run ends. */
  fixedRate?: boolean;
}

export interface JobStatus {
  name: string;
  runs: number;
  failures: number;
  last_run_ms: number | null;
  last_error: string | null;
}

/** Runs jobs on their cadence, one run of a job at a time, never letting a failure escape. */
export class JobRunner {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly status = new Map<string, JobStatus>();
  private stopped = false;

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  start(job: Job): void {
    // A plane closed before its start-up finished starts nothing.
    if (this.stopped) return;
    this.status.set(job.name, { name: job.name, runs: 0, failures: 0, last_run_ms: null, last_error: null });
    const tick = async () => {
      const started = this.clock.now();
      await this.runOnce(job);
      // At most everyMs: a wall clock stepped back during the run (seen on this machine's VM)
      // made the wait minutes long, and the replicas' read marks stopped (replicas.test.ts).
      const wait = job.fixedRate
        ? Math.min(job.everyMs, Math.max(0, job.everyMs - (this.clock.now() - started)))
        : job.everyMs;
      if (!this.stopped) this.timers.set(job.name, setTimeout(tick, wait).unref());
    };
    this.timers.set(job.name, setTimeout(tick, 0).unref());
  }

  async runOnce(job: Job): Promise<void> {
    const s = this.status.get(job.name) ?? {
      name: job.name,
      runs: 0,
      failures: 0,
      last_run_ms: null,
      last_error: null,
    };
    this.status.set(job.name, s);
    try {
      await job.run(this.clock.now() + job.budgetMs);
      s.last_error = null;
    } catch (err) {
      s.failures++;
      s.last_error = (err as Error).message;
      this.log.warn({ job: job.name, err: s.last_error }, 'background job failed; retried next run');
    } finally {
      s.runs++;
      s.last_run_ms = this.clock.now();
    }
  }

  list(): JobStatus[] {
    return [...this.status.values()].map((s) => ({ ...s }));
  }

  /** The named jobs whose last run failed (settings: stats.failed_jobs). */
  failedJobs(): number {
    let n = 0;
    for (const s of this.status.values()) if (s.last_error !== null) n++;
    return n;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
  }
}

/**
 * Works through queued job records (purge, archive cleanup) one at a time until `deadline`. A
 * call while a drain runs in this process joins it; between processes the records' row locks
 * decide who works on what.
 */
export function queueDrainer(
  now: () => number,
  queued: () => Promise<string[]>,
  runOne: (id: string, deadline: number) => Promise<void>,
): (deadline: number) => Promise<void> {
  let running: Promise<void> | null = null;
  return (deadline) => {
    running ??= (async () => {
      try {
        for (const id of await queued()) {
          if (now() >= deadline) break;
          await runOne(id, deadline);
        }
      } finally {
        running = null;
      }
    })();
    return running;
  };
}
