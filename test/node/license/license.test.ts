import { describe, expect, it } from 'vitest';
import { describeLicense, evaluateLicense } from '../../../src/node/license/license.js';
import { TEST_KEYS, RELEASE_KEYS, trustedKeys } from '../../../src/node/license/trusted-keys.js';
import { signedLicense } from '../helpers/node-process.js';

const NOW = Date.parse('2026-06-15T12:00:00Z');
const opts = { now: NOW, buildDate: '2026-05-01', keys: TEST_KEYS };
const lic = (expires: string, updates_until = 'unlimited') =>
  signedLicense({ licensee: 'ACME', expires, updates_until, nodes: 3 });

describe('licence evaluation (document 4 section 8)', () => {
  it.each([
    ['valid', lic('2026-12-31'), 'ok', undefined],
    ['last valid day', lic('2026-06-15'), 'ok', undefined],
    ['expired yesterday: grace', lic('2026-06-14'), 'grace', undefined],
    ['14th day of grace', lic('2026-06-01'), 'grace', undefined],
    ['grace over', lic('2026-05-31'), 'unlicensed', 'license_expired'],
    ['build newer than updates_until', lic('2027-01-01', '2026-04-30'), 'unlicensed', 'license_does_not_cover_build'],
    ['build on the updates_until day', lic('2027-01-01', '2026-05-01'), 'ok', undefined],
  ])('%s', (_n, text, state, reason) => {
    const s = evaluateLicense(text, opts);
    expect(s.state).toBe(state);
    expect(s.refusal?.reason).toBe(reason);
  });

  it('no file: no licence signal', () => {
    expect(evaluateLicense(null, opts)).toEqual({ state: null });
  });

  it('the message names the updates_until date', () => {
    expect(evaluateLicense(lic('2027-01-01', '2026-04-30'), opts).refusal?.message).toBe(
      'the licence does not cover builds after 2026-04-30',
    );
  });

  it('a tampered field breaks the signature', () => {
    const tampered = JSON.stringify({ ...JSON.parse(lic('2026-01-01')), expires: '2099-01-01' });
    expect(evaluateLicense(tampered, opts).refusal?.reason).toBe('license_invalid');
  });

  it('malformed files are invalid, not absent', () => {
    expect(evaluateLicense('{', opts).state).toBe('unlicensed');
    expect(evaluateLicense(JSON.stringify({ licensee: 'x' }), opts).state).toBe('unlicensed');
  });

  it('only test builds trust the test key', () => {
    expect(trustedKeys('release')).toEqual(RELEASE_KEYS);
    expect(trustedKeys('release')).not.toContain(TEST_KEYS[0]);
    expect(trustedKeys('dev')).toContain(TEST_KEYS[0]);
    expect(evaluateLicense(lic('2026-12-31'), { ...opts, keys: trustedKeys('release') }).state).toBe('unlicensed');
  });

  it('start-up line of a valid licence', () => {
    expect(describeLicense(evaluateLicense(lic('2026-12-31'), opts))).toBe('license OK (enforced)');
  });
});
