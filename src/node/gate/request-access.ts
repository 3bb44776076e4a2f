import type { FastifyRequest } from 'fastify';
import type { TicketClaims } from '../grants/session-keys.js';
import type { Principal } from './levels.js';

/**
 * Who is asking, once admitted (auth's authorizer decides). `public` is a path no rule covers
 * (the panel, login, the player).
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'management'; principal: Principal }
  | {
      kind: 'viewer';
      /** The ticket's claims; null when media is not protected (no `auth_backend`). */
      claims: TicketClaims | null;
      /** The ticket the request presented and that was accepted; a new one is issued otherwise. */
      ticket: string | undefined;
    };

/**
 * Per-request access results. Kept in a WeakMap rather than a `declare module 'fastify'`
 * augmentation: augmentations are global to the compilation and the plane, built in the same
 * tree, declares its own `principal` on the same interface. Here, below auth's hook, because the
 * gate's and the grants' routes read them and auth's authorizer imports both of those folders.
 */
export interface AccessResult {
  access: Access | null;
  address: string;
}
const results = new WeakMap<FastifyRequest, AccessResult>();

/** Called by auth's access hook first thing on every request; the hook fills `access` once judged. */
export function recordAccess(req: FastifyRequest, result: AccessResult): void {
  results.set(req, result);
}

/** The management principal of the request; null on public paths. */
export function principalOf(req: FastifyRequest): Principal | null {
  const a = results.get(req)?.access;
  return a?.kind === 'management' ? a.principal : null;
}

/** The admitted viewer of a media request: its ticket claims (null when media is open) and the ticket it presented. */
export function viewerOf(req: FastifyRequest): { claims: TicketClaims | null; ticket: string | undefined } {
  const a = results.get(req)?.access;
  return a?.kind === 'viewer' ? { claims: a.claims, ticket: a.ticket } : { claims: null, ticket: undefined };
}

export function clientAddressOf(req: FastifyRequest): string {
  return results.get(req)?.address ?? req.socket.remoteAddress ?? '';
}
