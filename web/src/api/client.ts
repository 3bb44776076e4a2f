/** The public API as the console uses it: a bearer session kept in localStorage, JSON in and out. */

const TOKEN_KEY = 'argus.session';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly body: unknown,
  ) {
    super(`${status} ${code}`);
  }
}

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

/** A GET that also answers the reply's ETag (the settings form sends it back as If-Match). */
export async function apiWithEtag<T>(path: string): Promise<{ body: T; etag: string | null }> {
  let etag: string | null = null;
  const body = await api<T>('GET', path, undefined, {}, (res) => {
    etag = res.headers.get('etag');
  });
  return { body, etag };
}

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  init: RequestInit = {},
  seen?: (res: Response) => void,
): Promise<T> {
  const headers: Record<string, string> = {};
  const token = sessionToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    ...init,
    method,
    headers: { ...headers, ...(init.headers as Record<string, string> | undefined) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  seen?.(res);
  const text = await res.text();
  const parsed = text ? safeJson(text) : null;
  if (!res.ok) {
    const code =
      typeof parsed === 'object' && parsed && 'error' in parsed
        ? String((parsed as { error: unknown }).error)
        : res.statusText;
    if (res.status === 401 && token && !path.endsWith('/auth/login')) {
      keepSession(null);
      onExpired();
    }
    throw new ApiFailure(res.status, code, parsed);
  }
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface User {
  id: string;
  org_id: string;
  login: string;
  name: string;
  role: string;
}
