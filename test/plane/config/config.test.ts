import { describe, expect, it } from 'vitest';
import { parse, problems } from './parse.helpers.js';
import { parse as parseToml } from 'smol-toml';
import { DEFAULT_PLANE_TOML } from '../../../src/plane/config/config.js';

describe('plane.toml', () => {
  it('the commented sample equals the defaults', () => {
    const fromSample = parse(DEFAULT_PLANE_TOML);
    const fromNothing = parse('');
    expect(fromSample).toEqual(fromNothing);
    expect(fromNothing).toMatchObject({
      dataDir: '/srv/argus',
      dvrExportMaxSecs: 3600,
      listen: { host: '127.0.0.1', port: 8080 },
      publicUrl: 'http://127.0.0.1:8080',
      logLevel: 'info',
      logLevelSource: 'file',
      moduleRateLimitDefault: 200,
      sessionTtlSecs: 43200,
      database: { kind: 'pglite', dir: '/srv/argus/db' },
      live: { globalCapacity: 1024, perPrincipal: 32, heartbeatMs: 15000 },
    });
    expect(parseToml(DEFAULT_PLANE_TOML)).toBeTruthy();
  });

  it.each([
    ['dvr_export_max_secs = 59', 'dvr_export_max_secs must be an integer in 60..86400'],
    ['dvr_export_max_secs = 86401', 'dvr_export_max_secs must be an integer in 60..86400'],
    ['[database]\nurl = "mysql://x"', 'database url must start with postgres://'],
    ['[database]\nurl = 5', '[database] url must be a string'],
    ['[network]\nlisten = "localhost:80"', '[network] listen must be IP:port, got "localhost:80"'],
    ['[network]\nlisten = "127.0.0.1:70000"', '[network] listen must be IP:port, got "127.0.0.1:70000"'],
    ['[network]\npublic_url = "not a url"', '[network] public_url is not a URL: "not a url"'],
    ['[logging]\nminimum_level = "loud"', '[logging] minimum_level must be one of debug, info, warn, error'],
    ['[events]\nmodule_rate_limit_default = 0', '[events] module_rate_limit_default must be an integer >= 1'],
  ])('reports %j', (text, message) => {
    expect(problems(text)).toEqual([message]);
  });

  it('parses the watermarks, max_bytes and the sweeper with their defaults', () => {
    expect(parse('')).toMatchObject({
      evidencePressure: { lowPercent: 70, highPercent: 85, criticalPercent: 95, maxBytes: null },
      sweeper: { enabled: true, intervalMs: 5000, timeoutMs: 2000, concurrency: 16 },
    });
    expect(
      parse(
        '[evidence_storage]\nlow_watermark_percent = 1\nhigh_watermark_percent = 2\ncritical_watermark_percent = 99\nmax_bytes = 1000\n[sweeper]\nenabled = false\ninterval_secs = 30\ntimeout_secs = 29\nconcurrency = 1',
      ),
    ).toMatchObject({
      evidencePressure: { lowPercent: 1, highPercent: 2, criticalPercent: 99, maxBytes: 1000 },
      sweeper: { enabled: false, intervalMs: 30000, timeoutMs: 29000, concurrency: 1 },
    });
  });

  // Document 1, limits: 1 <= low < high < critical <= 99.
  it.each([
    ['low_watermark_percent = 0', ['[evidence_storage] low_watermark_percent must be an integer in 1..99']],
    ['critical_watermark_percent = 100', ['[evidence_storage] critical_watermark_percent must be an integer in 1..99']],
    ['high_watermark_percent = 85.5', ['[evidence_storage] high_watermark_percent must be an integer in 1..99']],
    ['low_watermark_percent = "70"', ['[evidence_storage] low_watermark_percent must be an integer in 1..99']],
    ['low_watermark_percent = 85', ['[evidence_storage] watermarks must satisfy low < high < critical']],
    ['low_watermark_percent = 90', ['[evidence_storage] watermarks must satisfy low < high < critical']],
    ['high_watermark_percent = 95', ['[evidence_storage] watermarks must satisfy low < high < critical']],
    ['critical_watermark_percent = 80', ['[evidence_storage] watermarks must satisfy low < high < critical']],
    ['low_watermark_percent = 1\nhigh_watermark_percent = 2\ncritical_watermark_percent = 3', []],
    ['low_watermark_percent = 97\nhigh_watermark_percent = 98\ncritical_watermark_percent = 99', []],
    ['max_bytes = 0', ['[evidence_storage] max_bytes must be an integer >= 1']],
    ['max_bytes = "1G"', ['[evidence_storage] max_bytes must be an integer >= 1']],
  ])('[evidence_storage] %s', (line, expected) => {
    expect(problems(`[evidence_storage]\n${line}`)).toEqual(expected);
  });

  it.each([
    ['interval_secs = 0', '[sweeper] interval_secs must be an integer in 1..3600'],
    ['interval_secs = 3601', '[sweeper] interval_secs must be an integer in 1..3600'],
    ['timeout_secs = 0', '[sweeper] timeout_secs must be an integer in 1..60'],
    ['timeout_secs = 5', '[sweeper] timeout_secs must be below interval_secs'],
    ['concurrency = 0', '[sweeper] concurrency must be an integer in 1..256'],
    ['enabled = "yes"', '[sweeper] enabled must be true or false'],
  ])('[sweeper] %s', (line, message) => {
    expect(problems(`[sweeper]\n${line}`)).toEqual([message]);
  });

  it('reports every problem at once', () => {
    const all = problems('dvr_export_max_secs = 1\n[network]\nlisten = "x"\n[logging]\nminimum_level = "x"', {
      ARGUS_BOOTSTRAP_LOGIN: 'a',
    });
    expect(all).toHaveLength(4);
  });

  it('reports a TOML syntax error with the file name', () => {
    const [p] = problems('dvr_export_max_secs = = 3');
    expect(p).toMatch(/^\/srv\/argus\/plane\.toml: /);
  });
});

describe('environment', () => {
  it('DATABASE_URL wins over [database] url', () => {
    const c = parse('[database]\nurl = "postgres://file@127.0.0.1/a"', { DATABASE_URL: 'postgres://env@127.0.0.1/b' });
    expect(c.database).toEqual({ kind: 'postgres', url: 'postgres://env@127.0.0.1/b', source: 'DATABASE_URL' });
    expect(parse('[database]\nurl = "postgres://file@127.0.0.1/a"').database).toMatchObject({ source: 'plane.toml' });
  });

  it('RUST_LOG, or ARGUS_LOG as its alias, owns the level', () => {
    expect(parse('', { RUST_LOG: 'warn' })).toMatchObject({ logLevel: 'warn', logLevelSource: 'environment' });
    expect(parse('', { ARGUS_LOG: 'debug' })).toMatchObject({ logLevel: 'debug', logLevelSource: 'environment' });
    expect(problems('', { RUST_LOG: 'chatty' })).toEqual([
      'RUST_LOG/ARGUS_LOG must be one of debug, info, warn, error',
    ]);
  });

  it('takes the bootstrap login and password together', () => {
    expect(parse('', { ARGUS_BOOTSTRAP_LOGIN: 'boss', ARGUS_BOOTSTRAP_PASSWORD: 'long-enough' }).bootstrap).toEqual({
      login: 'boss',
      password: 'long-enough',
    });
    expect(problems('', { ARGUS_BOOTSTRAP_PASSWORD: 'long-enough' })).toEqual([
      'ARGUS_BOOTSTRAP_LOGIN and ARGUS_BOOTSTRAP_PASSWORD are set together',
    ]);
    expect(problems('', { ARGUS_BOOTSTRAP_LOGIN: 'boss', ARGUS_BOOTSTRAP_PASSWORD: 'short' })).toEqual([
      'ARGUS_BOOTSTRAP_PASSWORD must have at least 8 characters',
    ]);
  });

  it('never echoes the bootstrap password in a problem', () => {
    const all = problems('', { ARGUS_BOOTSTRAP_LOGIN: 'boss', ARGUS_BOOTSTRAP_PASSWORD: 'CANARY' });
    expect(all.join(' ')).not.toContain('CANARY');
  });
});
