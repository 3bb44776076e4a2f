import createClient from 'openapi-fetch';
import type { paths } from './openapi.gen.js';
import { ApiFailure } from './failure.js';

/**
 * The public API as the console uses it: one typed client (openapi-fetch over the types generated
 * from the plane's OpenAPI document, openapi.gen.ts), a bearer session kept in localStorage.
 * Only the modules of web/src/api/ call it; pages go through hooks (web/src/hooks/).
 */

const TOKEN_KEY = 'argus.session';

export { ApiFailure };

export function sessionToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

export function keepSession(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

/** Told when the session is refused (expired, revoked): the shell goes back to the login with the place kept. */
let onExpired: () => void = () => {};
export function whenSessionExpires(f: () => void): void {
  onExpired = f;
}

/** A refused session (not a failed sign-in): the session is dropped and the shell told. */
function seen(res: Response, sentToken: boolean, path: string): void {
  if (res.status === 401 && sentToken && !path.endsWith('/auth/login')) {
    keepSession(null);
    onExpired();
  }
}

// `fetch` looked up at each call, not captured once: tests (and nothing else) replace it.
export const client = createClient<paths>({ fetch: (request: Request) => globalThis.fetch(request) });
client.use({
  onRequest({ request }) {
    const token = sessionToken();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ request, response }) {
    seen(response, request.headers.has('authorization'), new URL(request.url, 'http://x').pathname);
  },
});

interface Answer<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/** The body of a successful answer; a refusal is thrown as ApiFailure (error-words.ts says it in words). */
export async function ok<D>(call: Promise<Answer<D>>): Promise<D> {
  return (await answered(call)).body;
}

/** The body and the ETag of a successful answer (the settings form sends it back as If-Match). */
export async function answered<D>(call: Promise<Answer<D>>): Promise<{ body: D; etag: string | null }> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const code =
      typeof error === 'object' && error !== null && 'error' in error
        ? String((error as { error: unknown }).error)
        : response.statusText;
    throw new ApiFailure(response.status, code, error ?? null);
  }
  return { body: data as D, etag: response.headers.get('etag') };
}

/**
 * A request outside the typed client, for a body that is not JSON (an image, an SSE stream): the
 * session's header, the same 401 rule and the same ApiFailure. The caller reads the Response.
 */
export async function rawFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const token = sessionToken();
  const headers = new Headers(init.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  const res = await fetch(path, { ...init, headers });
  seen(res, !!token, path);
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let body: unknown = text || null;
    try {
      body = JSON.parse(text);
    } catch {
      /* not the envelope: the status text is the code */
    }
    const code =
      typeof body === 'object' && body !== null && 'error' in body ? String((body as { error: unknown }).error) : '';
    throw new ApiFailure(res.status, code || res.statusText, body);
  }
  return res;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The JSON body of a path's successful answer (200 or 201), as the plane's OpenAPI document declares it. */
export type Reply<P extends keyof paths, M extends Method = 'get'> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 201: { content: { 'application/json': infer B } } }
      ? B
      : never
  : never;

/** The JSON body a path's operation accepts. */
export type Sent<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** A user as GET /api/v1/auth/me answers it. */
export type User = Reply<'/api/v1/auth/me'>['user'];
