import { isUuid } from '../http/list.js';
import type { NodesService } from '../nodes/nodes.service.js';

export interface NodeRef { id: string; name: string; enabled: boolean }
export interface NodeCall extends NodeRef { url: string; apiToken: string }

/** The uuid just below `id` in the database's order (bytes, as hex digits read), or null for the lowest. */
function predecessor(id: string): string | null {
  const n = BigInt(`0x${id.replace(/-/g, '')}`);
  if (n === 0n) return null;
  const h = (n - 1n).toString(16).padStart(32, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * One node's row through NodesService.list: the list pages by id with `after` exclusive, so
 * `after` = the id just below and `limit` 1 reads exactly that node in one indexed query.
 * A stand-in until NodesService offers `get(id)` (docs/node-ops.md, "Asked of other domains").
 */
export async function nodeRef(nodes: NodesService, rawId: string): Promise<NodeRef | undefined> {
  if (!isUuid(rawId)) return undefined;
  const id = rawId.toLowerCase();
  const after = predecessor(id);
  const page = await nodes.list({ ...(after ? { after } : {}), limit: 1 });
  const row = page.rows[0];
  return row && row.id === id ? { id, name: row.name, enabled: row.enabled } : undefined;
}

/** A node with what it takes to call it (its URL and write token); undefined when there is no such node. */
export async function nodeCall(nodes: NodesService, rawId: string): Promise<NodeCall | undefined> {
  const ref = await nodeRef(nodes, rawId);
  if (!ref) return undefined;
  const cred = await nodes.credentials(ref.id);
  return cred ? { ...ref, url: cred.url, apiToken: cred.apiToken } : undefined;
}
