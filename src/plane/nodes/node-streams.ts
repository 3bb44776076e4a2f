/**
 * The plane's writes to a node's streams (document 4 §3): `PUT /api/v1/streams/{name}` and
 * `DELETE /api/v1/streams/{name}` with the node's write token, and the node's storages from
 * `GET /api/v1/system`. The token travels only in the Authorization header; failures are
 * reported as fixed words, never with the URL's or the node's text.
 */
export interface StreamSpec { input: string; dvr: { storage: string; retention: string } | null; on_demand: boolean }

async function call(url: string, token: string, method: 'PUT' | 'DELETE' | 'GET', timeoutMs: number, body?: unknown): Promise<Response> {
  return fetch(url, {
    method, redirect: 'error', signal: AbortSignal.timeout(timeoutMs),
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

/** Creates or replaces a stream; true when the node took it. */
export async function putStream(base: string, token: string, name: string, spec: StreamSpec, timeoutMs: number): Promise<boolean> {
  try {
    const res = await call(`${base}/api/v1/streams/${encodeURIComponent(name)}`, token, 'PUT', timeoutMs, spec);
    await res.body?.cancel().catch(() => {});
    return res.status === 200 || res.status === 201;
  } catch { return false; }
}

/** Deletes a stream; true when it is gone (a stream already absent counts). */
export async function deleteStream(base: string, token: string, name: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await call(`${base}/api/v1/streams/${encodeURIComponent(name)}`, token, 'DELETE', timeoutMs);
    await res.body?.cancel().catch(() => {});
    return res.status === 200 || res.status === 404;
  } catch { return false; }
}

/** The name of the node's first storage, null when it has none; undefined when the node did not answer. */
export async function firstStorage(base: string, token: string, timeoutMs: number): Promise<string | null | undefined> {
  try {
    const res = await call(`${base}/api/v1/system`, token, 'GET', timeoutMs);
    if (res.status !== 200) { await res.body?.cancel().catch(() => {}); return undefined; }
    const b = (await res.json()) as { storages?: Array<{ name?: unknown }> };
    const name = Array.isArray(b.storages) ? b.storages[0]?.name : undefined;
    return typeof name === 'string' ? name : null;
  } catch { return undefined; }
}
