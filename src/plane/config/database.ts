import { join } from 'node:path';
import type { PlaneConfig, PlaneToml } from './config.types.js';
import { DatabaseUrlError, parseDatabaseHosts } from '../db/hosts.js';

/** [database] max_read_lag_secs when absent (document 4, section 15). */
const DEFAULT_MAX_READ_LAG_SECS = 10;

/**
 * [database]: the server (`url`, or DATABASE_URL, which wins) or the embedded database, and the
 * hot standbys for reads that may lag (`read_url`, or DATABASE_READ_URL, which wins; several
 * hosts like `url`) with the lag past which one is skipped (`max_read_lag_secs`). Replicas are
 * for servers only: the embedded database has none.
 */
export function parseDatabase(
  section: PlaneToml['database'],
  env: Record<string, string | undefined>,
  dataDir: string,
  problems: string[],
): PlaneConfig['database'] {
  const fileUrl = section?.url;
  if (fileUrl !== undefined && typeof fileUrl !== 'string') problems.push('[database] url must be a string');
  const url = env.DATABASE_URL || (typeof fileUrl === 'string' ? fileUrl : '');
  const fileRead = section?.read_url;
  if (fileRead !== undefined && typeof fileRead !== 'string') problems.push('[database] read_url must be a string');
  const readUrl = env.DATABASE_READ_URL || (typeof fileRead === 'string' ? fileRead : '');
  const lag = section?.max_read_lag_secs ?? DEFAULT_MAX_READ_LAG_SECS;
  if (typeof lag !== 'number' || !Number.isFinite(lag) || lag <= 0 || lag > 86400)
    problems.push('[database] max_read_lag_secs must be a number of seconds in (0, 86400]');

  const urlProblem = url ? databaseUrlProblem(url, 'database url') : null;
  if (urlProblem) problems.push(urlProblem);
  if (readUrl) {
    const readProblem = databaseUrlProblem(readUrl, 'database read_url');
    if (readProblem) problems.push(readProblem);
    else if (!url) problems.push('[database] read_url needs [database] url: the embedded database has no replicas');
  }
  if (!url || urlProblem) return { kind: 'pglite', dir: join(dataDir, 'db') };
  return {
    kind: 'postgres',
    url,
    source: env.DATABASE_URL ? 'DATABASE_URL' : 'plane.toml',
    ...(readUrl
      ? { read: { url: readUrl, maxLagSecs: typeof lag === 'number' ? lag : DEFAULT_MAX_READ_LAG_SECS } }
      : {}),
  };
}

/** What is wrong with a server URL or its host list (several servers: failover, replicas), if anything. */
function databaseUrlProblem(url: string, what: string): string | null {
  if (!/^postgres(ql)?:\/\//.test(url)) return `${what} must start with postgres://`;
  try {
    parseDatabaseHosts(url);
    return null;
  } catch (err) {
    if (err instanceof DatabaseUrlError) return err.message.replace(/^database url/, what);
    throw err;
  }
}
