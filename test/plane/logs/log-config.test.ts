import { describe, expect, it } from 'vitest';
import { ConfigError, parsePlaneConfig } from '../../../src/plane/config/config.js';
import { captureSource } from '../../../src/plane/logs/logs.service.js';

// The capture level's owner (document 1, document 4 section 1): RUST_LOG, its alias ARGUS_LOG, or
// plane.toml [logging] minimum_level; and [events] purge_record_retention_days (docs/logs.md).
const parse = (text: string, env: Record<string, string> = {}) =>
  parsePlaneConfig({ text, configFile: '/srv/argus/plane.toml', env });
const problems = (text: string, env: Record<string, string> = {}): string[] => {
  try {
    parse(text, env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};

describe('RUST_LOG / ARGUS_LOG', () => {
  it('the file owns the level without them', () => {
    const c = parse('[logging]\nminimum_level = "warn"\n');
    expect(c).toMatchObject({ logLevel: 'warn', logLevelSource: 'file', logLevelEnv: null });
    expect(captureSource(c)).toBe('settings file /srv/argus/plane.toml [logging] minimum_level');
  });

  it.each([
    [{ RUST_LOG: 'debug' }, 'debug', 'RUST_LOG'],
    [{ ARGUS_LOG: 'error' }, 'error', 'ARGUS_LOG'],
    [{ RUST_LOG: 'warn', ARGUS_LOG: 'debug' }, 'warn', 'RUST_LOG'],
    [{ RUST_LOG: ' WARN ' }, 'warn', 'RUST_LOG'],
    [{ RUST_LOG: 'trace' }, 'debug', 'RUST_LOG'],
    [{ RUST_LOG: 'off' }, 'error', 'RUST_LOG'],
    [{ RUST_LOG: 'info,argus_plane=debug' }, 'debug', 'RUST_LOG'],
    [{ RUST_LOG: 'hyper=warn,error' }, 'error', 'RUST_LOG'],
    [{ RUST_LOG: '', ARGUS_LOG: 'warn' }, 'warn', 'ARGUS_LOG'],
  ])('%j owns the level: %s', (env, level, name) => {
    const c = parse('[logging]\nminimum_level = "info"\n', env);
    expect(c).toMatchObject({ logLevel: level, logLevelSource: 'environment', logLevelEnv: name });
    expect(captureSource(c)).toBe(`environment ${name}`);
  });

  it.each([['loud'], ['hyper=debug'], ['argus_plane=verbose']])('RUST_LOG=%s is a configuration problem', (value) => {
    expect(problems('', { RUST_LOG: value })).toEqual([
      expect.stringMatching(/^RUST_LOG\/ARGUS_LOG must be one of debug, info, warn, error/),
    ]);
  });
});

describe('[events] purge_record_retention_days', () => {
  it('defaults to 30 and takes 1..3650', () => {
    expect(parse('').purgeRecordRetentionDays).toBe(30);
    expect(parse('[events]\npurge_record_retention_days = 7\n').purgeRecordRetentionDays).toBe(7);
    for (const v of ['0', '3651', '1.5', '"7"']) {
      expect(problems(`[events]\npurge_record_retention_days = ${v}\n`)).toEqual([
        '[events] purge_record_retention_days must be an integer in 1..3650',
      ]);
    }
  });
});
