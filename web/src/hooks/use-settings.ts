import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { changeSettings, planeSettings, settingsKeys, testStorage, type SettingsChange } from '../api/settings.js';

/** The plane's settings (`data.body`) with the ETag they were read under (`data.etag`). */
export const usePlaneSettings = () => useQuery({ queryKey: settingsKeys.plane, queryFn: planeSettings });

/** A change sent on the ETag last read (If-Match); the settings are read again after it. */
export function useChangeSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SettingsChange) => {
      const read = qc.getQueryData<Awaited<ReturnType<typeof planeSettings>>>(settingsKeys.plane);
      return changeSettings(body, read?.etag ?? null);
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: settingsKeys.plane }),
  });
}

export const useTestStorage = () => useMutation({ mutationFn: testStorage });
