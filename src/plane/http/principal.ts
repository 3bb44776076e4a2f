export type Role = 'superadmin' | 'admin' | 'user';

/** The signed-in caller, as the session check established it for this request. */
export interface Principal {
  userId: string;
  orgId: string;
  role: Role;
  login: string;
  name: string;
  sessionId: string;
  expiresAt: number;
  ip: string;
  userAgent: string;
}

const RANK: Record<Role, number> = { user: 0, admin: 1, superadmin: 2 };

export function atLeast(role: Role, min: Role): boolean {
  return RANK[role] >= RANK[min];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** Maps a schema validation failure to a spec code; unmapped failures keep the framework text. */
    validationCode?: (field: string, keyword: string) => string | undefined;
  }
}

/** The principal of an authenticated-scope request; the scope hook guarantees it is there. */
export function principalOf(req: { principal?: Principal }): Principal {
  if (!req.principal) throw new Error('principal missing outside the authenticated scope');
  return req.principal;
}
