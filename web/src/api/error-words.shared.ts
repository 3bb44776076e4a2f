/**
 * What the sentence tables of the error catalogue share: a sentence is fixed text or is made from
 * the extra fields the plane sends beside the code (`{error: code, ...extra}`).
 */
export type Extra = Record<string, unknown>;
export type Words = string | ((x: Extra) => string);
export type WordTable = Record<string, Words>;

/** The body's `retry_after` seconds when it carries a usable one. */
export function retryAfterOf(x: Extra): number | null {
  const s = x.retry_after;
  return typeof s === 'number' && Number.isFinite(s) && s >= 0 ? s : null;
}

/** "Try again in 3 s." when the plane said how long to wait, else a moment: operators wait, not guess. */
export function tryAgain(x: Extra): string {
  const s = retryAfterOf(x);
  return s === null ? 'Try again in a moment.' : `Try again in ${Math.max(1, Math.ceil(s))} s.`;
}

/** A quota's figure when the body names it; the sentence reads as well without. */
export function limitOf(x: Extra): string {
  return typeof x.limit === 'number' ? ` (${x.limit})` : '';
}
