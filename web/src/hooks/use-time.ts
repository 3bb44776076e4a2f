import { usePreferences } from './use-preferences.js';
import { BROWSER_TIME, setTimeDisplay, when, type TimeDisplay } from '../lib/text.js';

/**
 * The signed-in user's way of writing times (zone and clock of GET /api/v1/me/preferences), read
 * through the cached preferences: a component calls this and nothing is passed down to it. Until
 * they are read, or when they cannot be, the browser's zone and 24 h (`settled`: read or refused). It also sets the display
 * `when()` uses, so a page that formats with the plain function follows the same choice.
 */
export function useTimeDisplay(): TimeDisplay & { when(iso: unknown, date?: boolean): string; settled: boolean } {
  const prefs = usePreferences();
  const d: TimeDisplay = prefs.data ? { zone: prefs.data.timezone ?? null, clock: prefs.data.clock } : BROWSER_TIME;
  setTimeDisplay(d);
  return { ...d, when: (iso, date = true) => when(iso, d, date), settled: !prefs.isPending };
}
