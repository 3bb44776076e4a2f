import type { ApiError } from '../../common/api-error.js';
import { errors } from '../errors.js';

/**
 * Who is calling. `open` is the node with no gate credential at all: the panel and API are
 * unauthenticated (a warning is printed at start) but `/metrics` still is not.
 */
export type Principal =
  { kind: 'open' } | { kind: 'read_token' } | { kind: 'write_token' } | { kind: 'session'; expiresAt: number };

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const MEDIA_GRANTS_PATH = '/api/v1/auth/media-grants';
export const LOGIN_PATH = '/api/v1/auth/login';
export const EVENTS_PATH = '/api/v1/events';
/** Targets whose reply is the configuration text (or its versions); the forwarding route counts. */
const CONFIG_READ_PATHS = ['/api/v1/config', '/api/v1/fleet/self/config'];

/** Whether the gate applies to `path` at all. */
export function isGated(path: string): boolean {
  return path === '/metrics' || ((path === '/api/v1' || path.startsWith('/api/v1/')) && path !== LOGIN_PATH);
}

function readsConfig(path: string): boolean {
  return CONFIG_READ_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * The token-level table of document 3; null means allowed. Route-level preconditions come later.
 * Only the node's authorizer (auth/authorize.ts) asks it.
 */
export function gateRule(principal: Principal | null, method: string, path: string): ApiError | null {
  if (path === '/metrics') {
    return principal === null || principal.kind === 'open' ? errors.unauthorized() : null;
  }
  if (principal === null) return errors.unauthorized();
  if (principal.kind === 'open' || principal.kind === 'session') return null;
  if (path === MEDIA_GRANTS_PATH) return errors.forbidden('api_token_is_not_a_media_credential');
  if (principal.kind === 'write_token') return null;
  if (READ_METHODS.has(method) && readsConfig(path)) return errors.forbidden('read_token_cannot_read_config');
  if (!READ_METHODS.has(method)) return errors.forbidden('read_token_cannot_write');
  return null;
}

/** Actor recorded in the configuration history for a change made by `principal`. */
export function actorOf(principal: Principal | null): string {
  switch (principal?.kind) {
    case 'session':
      return 'admin';
    case 'write_token':
      return 'api_write_token';
    case 'open':
      return 'unauthenticated';
    default:
      return 'unknown';
  }
}
