import { useQuery } from '@tanstack/react-query';
import { myPreferences, preferencesKeys } from '../api/preferences.js';

/**
 * The caller's preferences (the plane's defaults until saved). Every page waits for them (the
 * zone and clock), so this module is in the console's first load; the savers are in
 * use-save-preferences.ts, with the pages that save, so the login page does not carry them.
 */
export const usePreferences = () => useQuery({ queryKey: preferencesKeys.mine, queryFn: myPreferences });
