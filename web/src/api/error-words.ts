import { ApiFailure } from './failure.js';
import { accessWords } from './error-words.access.js';
import { eventWords } from './error-words.events.js';
import { inputWords } from './error-words.input.js';
import { retryAfterOf, type Extra, type Words } from './error-words.shared.js';

/**
 * The console's one rule for a refusal (document 4 §12): a code of the plane's error catalogue
 * (src/plane/errors.ts) is shown as a sentence, never as the code. The sentences live in three
 * tables by domain; test/web/error-words.test.ts fails when a catalogue code has none.
 */
const WORDS: Record<string, Words> = { ...accessWords, ...inputWords, ...eventWords };

const NO_ANSWER = 'The plane did not answer. Check the connection and try again.';

/** The sentence for an error thrown by `api()`: an ApiFailure's code, else the network failed. */
export function errorSentence(err: unknown): string {
  if (!(err instanceof ApiFailure)) return NO_ANSWER;
  const extra = extraOf(err);
  // Not the plane's envelope (a proxy's page): the code is only the HTTP status text.
  if (extra.error !== err.code) return unknown(err.code, err.status, extra);
  return codeSentence(err.code, err.status, extra);
}

/**
 * The sentence for a code without a thrown failure: a dashboard batch answers each widget's
 * refusal as a bare code (a 4xx: the batch itself fails on 403 and 5xx).
 */
export function codeSentence(code: string, status: number, extra: Extra = {}): string {
  const words = Object.hasOwn(WORDS, code) ? WORDS[code] : undefined;
  if (words !== undefined) return withField(typeof words === 'string' ? words : words(extra), extra);
  return withField(freeText(code, status) ?? unknown(code, status, extra), extra);
}

/** Seconds to wait before asking again, when the plane said so (429 and 503 with `retry_after`). */
export function retryAfter(err: unknown): number | null {
  return err instanceof ApiFailure && (err.status === 429 || err.status === 503) ? retryAfterOf(extraOf(err)) : null;
}

function extraOf(err: ApiFailure): Extra {
  return typeof err.body === 'object' && err.body !== null && !Array.isArray(err.body) ? (err.body as Extra) : {};
}

/**
 * Three factories put a text in place of a code (settingsInvalid, planeConfigUnreadable,
 * storageCheckFailed): those texts are already words, shown as they came inside a sentence.
 */
function freeText(code: string, status: number): string | null {
  if (code.startsWith('plane_config_unreadable:')) {
    return `The plane's configuration file (plane.toml) could not be read: ${trimEnd(code.slice('plane_config_unreadable:'.length))}.`;
  }
  if (!/\s/.test(code)) return null;
  if (status === 400) return `The plane refused the value: ${trimEnd(code)}.`;
  if (status === 502) return `The storage check failed: ${trimEnd(code)}.`;
  return null;
}

/** A code this console does not know (a newer plane): a sentence by status, the code in small print for support. */
function unknown(code: string, status: number, extra: Extra): string {
  const wait = retryAfterOf(extra);
  const base =
    status === 400
      ? 'The plane refused the request as invalid'
      : status === 401
        ? 'Your session has ended: sign in again'
        : status === 403
          ? 'Your role does not allow this'
          : status === 404
            ? 'Not found: it may have been deleted'
            : status === 409
              ? 'This conflicts with the current state: reload and try again'
              : status === 410
                ? 'This is no longer available'
                : status === 413
                  ? 'What was sent is too large'
                  : status === 422
                    ? 'The plane cannot do this as asked'
                    : status === 429
                      ? `The plane is busy: try again in ${wait === null ? 'a moment' : `${Math.max(1, Math.ceil(wait))} s`}`
                      : status === 502 || status === 504
                        ? 'A node or a storage behind the plane did not answer properly'
                        : status === 503
                          ? 'The plane is temporarily unavailable: try again shortly'
                          : status === 507
                            ? 'Storage is full'
                            : status >= 500
                              ? 'The plane failed while doing this: try again, and tell your administrator if it persists'
                              : `The request failed (HTTP ${status})`;
  return code && code !== String(status) ? `${base} (code: ${code}).` : `${base}.`;
}

/** Validation errors may name the field and the reason; say them when the sentence does not already. */
function withField(sentence: string, extra: Extra): string {
  let out = sentence;
  if (typeof extra.field === 'string' && extra.field && !out.includes(extra.field)) out += ` Field: ${extra.field}.`;
  if (typeof extra.reason === 'string' && extra.reason && !out.includes(trimEnd(extra.reason)))
    out += ` ${capital(trimEnd(extra.reason))}.`;
  return out;
}

const trimEnd = (s: string) => s.trim().replace(/[.\s]+$/, '');
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
