import { callNode, nodeUrl } from './node-call.js';

/**
 * The plane's writes to a node's streams (document 4 §3): `PUT /api/v1/streams/{name}` and
 * `DELETE /api/v1/streams/{name}` with the node's write token, and the node's storages from
 * `GET /api/v1/system`, through the one node call (`node-call.ts`: the token only in the
 * Authorization header, failures as fixed words). Each answers a plain outcome: the caller
 * (provisioning) retries through the reconcile, it never fails a camera write.
 */
export interface StreamSpec {
  input: string;
  dvr: { storage: string; retention: string } | null;
  on_demand: boolean;
}

const streamUrl = (base: string, name: string) => nodeUrl(base, `/api/v1/streams/${encodeURIComponent(name)}`);

/** Creates or replaces a stream; true when the node took it. */
export async function putStream(
  base: string,
  token: string,
  name: string,
  spec: StreamSpec,
  timeoutMs: number,
): Promise<boolean> {
  try {
    const res = await callNode({ url: base, apiToken: token }, 'PUT', streamUrl(base, name), { body: spec, timeoutMs });
    return res.status === 200 || res.status === 201;
  } catch {
    return false;
  }
}

/** Deletes a stream; true when it is gone (a stream already absent counts). */
export async function deleteStream(base: string, token: string, name: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await callNode({ url: base, apiToken: token }, 'DELETE', streamUrl(base, name), { timeoutMs });
    return res.status === 200 || res.status === 404;
  } catch {
    return false;
  }
}

/** The name of the node's first storage, null when it has none; undefined when the node did not answer. */
export async function firstStorage(base: string, token: string, timeoutMs: number): Promise<string | null | undefined> {
  try {
    const res = await callNode({ url: base, apiToken: token }, 'GET', nodeUrl(base, '/api/v1/system'), { timeoutMs });
    const b = res.body as { storages?: Array<{ name?: unknown }> } | null;
    if (res.status !== 200 || b === null || typeof b !== 'object') return undefined;
    const name = Array.isArray(b.storages) ? b.storages[0]?.name : undefined;
    return typeof name === 'string' ? name : null;
  } catch {
    return undefined;
  }
}
