import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { AuthBackend } from '../config/config.types.js';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { LicenseStatus } from '../license/license.js';
import { GRANT_TOKEN_TYPE, type MediaGrants } from '../grants/grants.service.js';

/** Whether a viewer token's `stream` claim (a name, or a prefix ending in `*`) covers `stream`. */
export function streamClaimMatches(claim: unknown, stream: string): boolean {
  if (typeof claim !== 'string' || claim.length === 0) return false;
  return claim.endsWith('*') ? stream.startsWith(claim.slice(0, -1)) : claim === stream;
}

/** The licence comes first: a node whose licence does not cover it serves nobody, whatever the token. */
export function licenseRefusal(status: LicenseStatus) {
  return status.refusal ? errors.mediaForbidden(status.refusal.reason, status.refusal.message) : null;
}

/**
 * Viewer authorization of the first media request (document 4 section 6): a media grant of this
 * node, or a viewer token of the `auth_backend`. Without `auth_backend` media is not protected.
 */
export class ViewerAuth {
  private jwks: { url: string; set: ReturnType<typeof createRemoteJWKSet> } | null = null;

  constructor(private readonly clock: Clock, private readonly grants: MediaGrants) {}

  async check(backend: AuthBackend | undefined, use: { stream: string; protocol: string; address: string; token: string | undefined }): Promise<void> {
    if (!backend) return;
    const refuse = errors.mediaForbidden('viewer_token_invalid', 'a valid viewer token for this stream is required');
    if (!use.token) throw refuse;
    let typ: string | undefined;
    try { typ = decodeProtectedHeader(use.token).typ; } catch { throw refuse; }
    if (typ === GRANT_TOKEN_TYPE) {
      if (!(await this.grants.verify(use.token, use))) throw refuse;
      return;
    }
    const payload = await this.verifyViewer(backend, use.token).catch(() => null);
    if (!payload || payload.typ !== 'viewer' || !streamClaimMatches(payload.stream, use.stream)) throw refuse;
    const protocols = payload.protocols;
    if (protocols !== undefined && !(Array.isArray(protocols) && protocols.includes(use.protocol))) throw refuse;
  }

  private async verifyViewer(backend: AuthBackend, token: string): Promise<JWTPayload> {
    const options = { currentDate: new Date(this.clock.now()), requiredClaims: ['exp'] };
    if (backend.kind === 'hs256') {
      return (await jwtVerify(token, new TextEncoder().encode(backend.secret), { ...options, algorithms: ['HS256'] })).payload;
    }
    if (this.jwks?.url !== backend.url) this.jwks = { url: backend.url, set: createRemoteJWKSet(new URL(backend.url)) };
    return (await jwtVerify(token, this.jwks.set, options)).payload;
  }
}
