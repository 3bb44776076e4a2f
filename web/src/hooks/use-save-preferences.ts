import { useMutation, useQueryClient } from '@tanstack/react-query';
import { preferencesKeys, savePreferences, type Preferences } from '../api/preferences.js';

/** Saves the whole record; the plane's reply (cameras no longer visible left out) becomes the cached one. */
export function useSavePreferences() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: savePreferences,
    onSuccess: (saved) => qc.setQueryData(preferencesKeys.mine, saved),
  });
}

/**
 * Saves the live wall's views (issue 23). PUT replaces the whole record, so the zone and clock go
 * back exactly as last read: the wall offers saving only once the preferences are read.
 */
export function useSaveViews() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (views: Preferences['views']) => {
      const saved = qc.getQueryData<Preferences>(preferencesKeys.mine);
      if (!saved) return Promise.reject(new Error('Your preferences are not read yet: try again in a moment.'));
      return savePreferences({ timezone: saved.timezone, clock: saved.clock, views });
    },
    onSuccess: (saved) => qc.setQueryData(preferencesKeys.mine, saved),
  });
}
