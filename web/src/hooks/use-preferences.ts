import { useQuery } from '@tanstack/react-query';
import { myPreferences, preferencesKeys } from '../api/preferences.js';

/**
 * The caller's preferences (the plane's defaults until saved). Every page waits for them (the
 * zone and clock), so this module is in the console's first load; the savers are in
 * use-save-preferences.ts, with the pages that save, so the login page does not carry them.
 */
export const usePreferences = () =>
  useQuery({
    queryKey: preferencesKeys.mine,
    queryFn: myPreferences,
    // Every <Time> reads them: a refused read is asked again by Retry (or the next page), not by
    // each component that mounts. With the default, each mount fetched again, the page went back
    // to loading, its components unmounted and mounted again, and fetched again: a loop
    // (test/web/pages/profile.test.tsx, 503 on the read).
    retryOnMount: false,
    // A refused read is asked again every 30 s meanwhile (the times show in the browser's zone).
    refetchInterval: (q) => (q.state.status === 'error' ? 30_000 : false),
  });
