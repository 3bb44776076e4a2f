import { describe, expect, it } from 'vitest';
import { describeErrors } from '../../src/plane/errors.js';
import { ApiFailure } from '../../web/src/api/client.js';
import { codeSentence, errorSentence, retryAfter } from '../../web/src/api/error-words.js';

/** A failure as `api()` throws it: the body is the plane's envelope `{error: code, ...extra}`. */
const failure = (status: number, code: string, extra: Record<string, unknown> = {}) =>
  new ApiFailure(status, code, { error: code, ...extra });

const isSentence = (s: string) => /^[A-Z"]/.test(s) && s.endsWith('.');

describe('every code of the plane catalogue has a sentence (document 4 §12)', () => {
  // The catalogue's own list (the one the OpenAPI document is built from): a code added there
  // without a sentence falls to the generic one, which carries "(code: x)" and fails below.
  const catalogue = describeErrors();

  it('the catalogue is read', () => {
    expect(catalogue.length).toBeGreaterThan(150);
    expect(catalogue.map((c) => c.code)).toContain('dvr_export_max_secs_out_of_range');
  });

  for (const { status, code } of catalogue) {
    // Three factories put a text in place of a code; the catalogue describes them by a <placeholder>.
    const placeholder = code.includes('<');
    it(`${status} ${code}`, () => {
      const s = errorSentence(failure(status, code));
      expect(s).not.toBe(code);
      expect(isSentence(s), s).toBe(true);
      if (!placeholder) {
        expect(s.toLowerCase()).not.toContain(code.toLowerCase());
        expect(s).not.toContain('(code:');
      }
      expect(s.length).toBeGreaterThan(10);
    });
  }
});

describe('the extra fields', () => {
  it('says how long to wait when the plane is busy', () => {
    expect(errorSentence(failure(429, 'analytics_busy', { scope: 'global', retry_after: 3 }))).toBe(
      'Busy: too many analytics queries at once. Try again in 3 s.',
    );
    expect(errorSentence(failure(429, 'event_search_busy', { retry_after: 1 }))).toContain('Try again in 1 s.');
    expect(errorSentence(failure(429, 'too_many_login_attempts', { retry_after: 120 }))).toBe(
      'Too many sign-in attempts. Try again in 120 s.',
    );
    expect(errorSentence(failure(429, 'rate_limited'))).toBe('Too many requests. Try again in a moment.');
    expect(retryAfter(failure(429, 'analytics_busy', { retry_after: 2 }))).toBe(2);
    expect(retryAfter(failure(400, 'bad_name', { retry_after: 2 }))).toBeNull();
  });

  it('names the field, the reason, the limit', () => {
    expect(errorSentence(failure(400, 'bad_request', { field: 'rate_limit' }))).toBe(
      'The plane refused the request as invalid. Field: rate_limit.',
    );
    expect(
      errorSentence(
        failure(400, 'evidence_dir_refused', { reason: 'evidence_storage.dir: inside the plane data folder' }),
      ),
    ).toBe('The plane may not use this folder for evidence: evidence_storage.dir: inside the plane data folder.');
    expect(errorSentence(failure(409, 'max_cameras_reached', { limit: 10 }))).toBe(
      'The organisation has reached its limit of cameras (10).',
    );
    expect(errorSentence(failure(422, 'event_search_too_broad', { candidate_limit: 50000 }))).toContain(
      'more than 50000',
    );
    expect(errorSentence(failure(502, 'node_bad_reply', { node_status: 500 }))).toContain('(HTTP 500)');
  });

  it('shows the texts some factories send in place of a code inside a sentence', () => {
    expect(errorSentence(failure(400, 'listen must be IP:port'))).toBe(
      'The plane refused the value: listen must be IP:port.',
    );
    expect(errorSentence(failure(502, 'write failed: EACCES'))).toBe('The storage check failed: write failed: EACCES.');
    expect(errorSentence(failure(500, 'plane_config_unreadable:EACCES'))).toContain('plane.toml');
  });

  it('an unknown code: a sentence by status, the code only in small print', () => {
    expect(errorSentence(failure(409, 'some_new_code'))).toBe(
      'This conflicts with the current state: reload and try again (code: some_new_code).',
    );
    expect(errorSentence(failure(429, 'new_busy', { retry_after: 4 }))).toBe(
      'The plane is busy: try again in 4 s (code: new_busy).',
    );
    expect(errorSentence(new ApiFailure(502, 'Bad Gateway', '<html>'))).toBe(
      'A node or a storage behind the plane did not answer properly (code: Bad Gateway).',
    );
    expect(codeSentence('analytics_top_limit', 400)).toBe('The number of groups to show must be between 1 and 100.');
  });

  it('a network failure', () => {
    expect(errorSentence(new TypeError('Failed to fetch'))).toBe(
      'The plane did not answer. Check the connection and try again.',
    );
    expect(errorSentence(undefined)).toBe('The plane did not answer. Check the connection and try again.');
  });
});
