import { useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { fleetSummary, followStream, monitorKeys, planeLog, planeSamples, type LogQuery } from '../api/monitor.js';

export const useFleetSummary = () => useQuery({ queryKey: monitorKeys.summary, queryFn: fleetSummary });

export const usePlaneSamples = () => useQuery({ queryKey: monitorKeys.plane, queryFn: planeSamples });

/** The newest 200 entries of the plane's log ring for `query` (level, target, words). */
export const usePlaneLog = (query: LogQuery) =>
  useQuery({ queryKey: monitorKeys.log(query), queryFn: () => planeLog({ ...query, limit: 200 }) });

/** Follows an SSE route while mounted (a new path starts a new stream; frames go to the latest handler). */
export function useStream(path: string | null, onFrame: (data: string) => void): void {
  const handler = useRef(onFrame);
  useEffect(() => {
    handler.current = onFrame;
  });
  useEffect(() => {
    if (!path) return;
    const stop = new AbortController();
    void followStream(path, (data) => handler.current(data), stop.signal).catch(() => {});
    return () => stop.abort();
  }, [path]);
}
