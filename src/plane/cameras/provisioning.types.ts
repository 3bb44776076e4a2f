/**
 * The contract between the sweeper and the cameras' provisioning (document 4 §3, §6): each sweep,
 * the sweeper hands over what every reachable node holds, and provisioning repairs the difference
 * between the plane's inventory (the desired state) and the node's streams.
 */

/** A stream as the node lists it (a row of its `GET /api/v1/streams`, the fields the comparison needs). */
export interface NodeStreamRow {
  name: string;
  state: string;
  input: string | null;
  dvr: { storage: string; retention: string } | null;
  on_demand: boolean;
}

/** One reachable node of a sweep, whose stream list was read. */
export interface NodeHoldings {
  id: string;
  /** the node's base URL, without a trailing slash */
  url: string;
  /** the node's write token (never logged) */
  token: string;
  /** the node's storage names, in its configuration order (from `GET /api/v1/system` `storages`) */
  storages: string[];
  streams: NodeStreamRow[];
}

export interface StreamReconciler {
  /** Creates, fixes and removes streams so that each node holds what the inventory says; one call per sweep. */
  reconcile(nodes: NodeHoldings[]): Promise<void>;
}
