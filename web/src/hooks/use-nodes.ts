import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  changeNode,
  createNode,
  deleteNode,
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
  type NodeChange,
  type NodeLevel,
} from '../api/nodes.js';

/** The fleet's nodes (superadmin: the plane refuses others, so `enabled` false asks nothing); `refetchInterval` keeps states fresh. */
export const useNodes = (opts: { enabled?: boolean; refetchInterval?: number } = {}) =>
  useQuery({
    queryKey: nodeKeys.all,
    queryFn: listNodes,
    enabled: opts.enabled ?? true,
    refetchInterval: opts.refetchInterval,
  });

/** A node's licence as it reports it (a row of the nodes page); an unreachable node is the query's error. */
export const useNodeLicence = (id: string) =>
  useQuery({ queryKey: nodeKeys.licence(id), queryFn: () => nodeLicence(id), retry: false });

/** The superadmin's changes of the fleet's nodes: register, enable or disable, remove; the list read again. */
export function useNodeAdmin() {
  const qc = useQueryClient();
  const again = () => qc.invalidateQueries({ queryKey: nodeKeys.all });
  return {
    create: useMutation({ mutationFn: createNode, onSuccess: again }),
    change: useMutation({
      mutationFn: (v: { id: string; body: NodeChange }) => changeNode(v.id, v.body),
      onSuccess: again,
    }),
    remove: useMutation({ mutationFn: deleteNode, onSuccess: again }),
  };
}

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
