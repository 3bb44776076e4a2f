/** Seconds a key moves the playhead: an arrow 10 s, with Shift or Page Up/Down a twelfth of the window. */
const STEP_S = 10;

/** The moment (ms) a key of the slider moves to from `at`, within [fromMs, endMs]; null for a key it does not use. */
export function keyMove(key: string, shift: boolean, at: number, fromMs: number, endMs: number, windowS: number) {
  const big = (windowS / 12) * 1000;
  const small = shift ? big : STEP_S * 1000;
  const to =
    key === 'ArrowRight' || key === 'ArrowUp'
      ? at + small
      : key === 'ArrowLeft' || key === 'ArrowDown'
        ? at - small
        : key === 'PageUp'
          ? at + big
          : key === 'PageDown'
            ? at - big
            : key === 'Home'
              ? fromMs
              : key === 'End'
                ? endMs
                : null;
  return to === null ? null : Math.min(endMs, Math.max(fromMs, to));
}
