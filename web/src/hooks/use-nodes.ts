import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  listNodes,
  nodeConfig,
  nodeHistory,
  nodeKeys,
  nodeLicence,
  nodeLogging,
  nodeLogs,
  nodeSessions,
  rollBack,
  setNodeLogging,
  type LogLevel,
  type NodeLevel,
} from '../api/nodes.js';

export const useNodes = () => useQuery({ queryKey: nodeKeys.all, queryFn: listNodes });

/** Everything the node page reads of node `id`: its sessions every 10 s, its log ring at `level` every 5 s. */
export function useNode(id: string, level: LogLevel) {
  return {
    licence: useQuery({ queryKey: nodeKeys.licence(id), queryFn: () => nodeLicence(id) }),
    logging: useQuery({ queryKey: nodeKeys.logging(id), queryFn: () => nodeLogging(id) }),
    sessions: useQuery({ queryKey: nodeKeys.sessions(id), queryFn: () => nodeSessions(id), refetchInterval: 10_000 }),
    logs: useQuery({ queryKey: nodeKeys.logs(id, level), queryFn: () => nodeLogs(id, level), refetchInterval: 5_000 }),
    history: useQuery({ queryKey: nodeKeys.history(id), queryFn: () => nodeHistory(id) }),
  };
}

/** The node's changes: its log level and a rollback; its level and versions are read again. */
export function useNodeEdits(id: string) {
  const qc = useQueryClient();
  const again = async () => {
    await qc.invalidateQueries({ queryKey: nodeKeys.logging(id) });
    await qc.invalidateQueries({ queryKey: nodeKeys.history(id) });
  };
  return {
    setLevel: useMutation({ mutationFn: (body: NodeLevel) => setNodeLogging(id, body), onSuccess: again }),
    rollBack: useMutation({ mutationFn: (epoch: number) => rollBack(id, epoch), onSuccess: again }),
    /** Reading the configuration is audited: asked on demand, never cached. */
    config: useMutation({ mutationFn: () => nodeConfig(id) }),
  };
}
