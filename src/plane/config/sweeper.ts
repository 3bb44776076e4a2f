import type { PlaneConfig, PlaneToml } from './config.types.js';

/** [sweeper]: whether this process polls nodes, how often, the poll time-out and how many at once. */
export function parseSweeper(section: PlaneToml['sweeper'], problems: string[]): PlaneConfig['sweeper'] {
  const sw = section ?? {};
  const interval = sw.interval_secs ?? 5,
    timeout = sw.timeout_secs ?? 2,
    concurrency = sw.concurrency ?? 16;
  const intervalOk = Number.isInteger(interval) && interval >= 1 && interval <= 3600;
  if (!intervalOk) problems.push('[sweeper] interval_secs must be an integer in 1..3600');
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 60)
    problems.push('[sweeper] timeout_secs must be an integer in 1..60');
  else if (intervalOk && timeout >= interval) problems.push('[sweeper] timeout_secs must be below interval_secs');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
    problems.push('[sweeper] concurrency must be an integer in 1..256');
  const sweeperEnabled = sw.enabled ?? true;
  if (typeof sweeperEnabled !== 'boolean') problems.push('[sweeper] enabled must be true or false');
  return { enabled: sweeperEnabled, intervalMs: interval * 1000, timeoutMs: timeout * 1000, concurrency };
}
