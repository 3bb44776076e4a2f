import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { myPreferences, preferencesKeys, savePreferences } from '../api/preferences.js';

/** The caller's preferences (the plane's defaults until saved). */
export const usePreferences = () => useQuery({ queryKey: preferencesKeys.mine, queryFn: myPreferences });

/** Saves the whole record; the plane's reply (cameras no longer visible left out) becomes the cached one. */
export function useSavePreferences() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: savePreferences,
    onSuccess: (saved) => qc.setQueryData(preferencesKeys.mine, saved),
  });
}
