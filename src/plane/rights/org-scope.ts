import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';

/**
 * The organisation a caller reads: a superadmin every organisation, or the one it names in
 * `org`; anyone else its own, and 403 cross_org for naming a foreign one.
 * Returns null for "every organisation".
 */
export function readScope(p: Principal, org: string | undefined): string | null {
  if (p.role === 'superadmin') return org ?? null;
  if (org !== undefined && org.toLowerCase() !== p.orgId) throw errors.crossOrg();
  return p.orgId;
}

/**
 * The organisation a new record goes to: the caller's own by default; a superadmin may name any,
 * anyone else only its own (403 cross_org).
 */
export function writeScope(p: Principal, orgId: string | null | undefined): string {
  if (orgId === undefined || orgId === null) return p.orgId;
  const id = orgId.toLowerCase();
  if (p.role !== 'superadmin' && id !== p.orgId) throw errors.crossOrg();
  return id;
}

/** The organisation filter for looking up one record: null (any) for a superadmin. */
export function recordScope(p: Principal): string | null {
  return p.role === 'superadmin' ? null : p.orgId;
}
