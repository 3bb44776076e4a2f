import { useEffect, useRef } from 'react';
import { useQueries, useQuery } from '@tanstack/react-query';
import { nodeKeys, nodeLicence } from '../api/nodes.js';
import { fleetSummary, followStream, monitorKeys, planeLog, planeSamples, type LogQuery } from '../api/monitor.js';

export const useFleetSummary = () => useQuery({ queryKey: monitorKeys.summary, queryFn: fleetSummary });

export const usePlaneSamples = () => useQuery({ queryKey: monitorKeys.plane, queryFn: planeSamples });

/** The newest 200 entries of the plane's log ring for `query` (level, target, words). */
export const usePlaneLog = (query: LogQuery) =>
  useQuery({ queryKey: monitorKeys.log(query), queryFn: () => planeLog({ ...query, limit: 200 }) });

/**
 * Each node's licence state, by id, read only while `wanted` (a licence alert is up: the summary
 * counts the unlicensed and in-grace nodes without naming them). A node that does not answer is left out.
 */
export function useNodeLicences(ids: readonly string[], wanted: boolean): Record<string, string> {
  const reads = useQueries({
    queries: ids.map((id) => ({
      queryKey: nodeKeys.licence(id),
      queryFn: () => nodeLicence(id),
      enabled: wanted,
      staleTime: 60_000,
    })),
  });
  const out: Record<string, string> = {};
  reads.forEach((r, i) => {
    if (r.data) out[ids[i]!] = r.data.state;
  });
  return out;
}

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
