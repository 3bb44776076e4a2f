import { useSyncExternalStore } from 'react';

/**
 * What the live wall reads from the browser (issue 23): one ticking clock for every tile, the
 * element in full screen, and whether the screen is a phone's.
 */

// One timer for all the tiles' clocks, on the second, so that 16 clocks tick together.
let now = Date.now();
let timer: ReturnType<typeof setTimeout> | undefined;
const ticks = new Set<() => void>();
function tick() {
  now = Date.now();
  ticks.forEach((f) => f());
  timer = setTimeout(tick, 1000 - (now % 1000));
}
function onTick(f: () => void) {
  ticks.add(f);
  if (!timer) {
    now = Date.now();
    timer = setTimeout(tick, 1000 - (now % 1000));
  }
  return () => {
    ticks.delete(f);
    if (!ticks.size) {
      clearTimeout(timer);
      timer = undefined;
    }
  };
}

/** The current time in epoch milliseconds, a new one each second. */
export const useNow = (): number => useSyncExternalStore(onTick, () => now);

function onFullscreen(f: () => void) {
  document.addEventListener('fullscreenchange', f);
  return () => document.removeEventListener('fullscreenchange', f);
}

/** The element shown in full screen now, if any (the Escape key leaves it: the browser's own). */
export const useFullscreenElement = (): Element | null =>
  useSyncExternalStore(onFullscreen, () => document.fullscreenElement ?? null);

/** Puts `el` in full screen, or leaves full screen when something is in it; a refusal changes nothing. */
export function toggleFullscreen(el: Element | null): void {
  const done = document.fullscreenElement ? document.exitFullscreen?.() : el?.requestFullscreen?.();
  void done?.catch(() => {});
}

const PHONE = '(max-width: 640px)';
function onPhone(f: () => void) {
  const m = typeof matchMedia === 'function' ? matchMedia(PHONE) : null;
  m?.addEventListener('change', f);
  return () => m?.removeEventListener('change', f);
}

/** The screen is a phone's (the console's 640 px break): the wall shows 1 or 2x2 there. */
export const usePhone = (): boolean =>
  useSyncExternalStore(onPhone, () => typeof matchMedia === 'function' && matchMedia(PHONE).matches);
