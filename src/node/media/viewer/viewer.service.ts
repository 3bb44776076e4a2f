import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { AuthBackend } from '../../config/config.types.js';
import type { Clock } from '../../../common/clock.js';
import { errors } from '../../errors.js';
import { GRANT_TOKEN_TYPE, type MediaGrants } from '../../grants/grants.service.js';
import type { SessionKeyRing, TicketClaims } from '../../grants/session-keys.js';

/**
 * What a media request asks for; a media grant's intent decides which of these it opens.
 * `live_ws` is live video over a WebSocket (fMP4, document 4 section 14): the same admission as
 * `live`, but the credential must allow the protocol `ws` instead of `hls`.
 */
export type MediaKind = 'live' | 'live_ws' | 'playback' | 'preview' | 'export';

/** Intents of document 3 and the media paths they open (a grant is bound to its purpose). */
const INTENT_KINDS: Record<string, MediaKind[]> = {
  live: ['live', 'live_ws', 'preview'],
  dvr: ['playback', 'live', 'preview'],
  timeshift: ['playback', 'live', 'preview'],
  vod: ['playback'],
  preview: ['preview'],
  export: ['export'],
  publish: [],
};

/** Established sessions outlive the token that opened them; key rotation is what ends them early. */
export const TICKET_TTL_SECS = 12 * 3600;
export const MEDIA_PROTOCOL = 'hls';
export const LIVE_WS_PROTOCOL = 'ws';

/** The protocol a credential must list to open a media request of this kind. */
export function protocolOf(kind: MediaKind): string {
  return kind === 'live_ws' ? LIVE_WS_PROTOCOL : MEDIA_PROTOCOL;
}

export interface MediaUse {
  stream: string;
  kind: MediaKind;
  address: string;
  token?: string;
  ticket?: string;
}

/** Whether a viewer token's `stream` claim (a name, or a prefix ending in `*`) covers `stream`. */
export function streamClaimMatches(claim: unknown, stream: string): boolean {
  if (typeof claim !== 'string' || claim.length === 0) return false;
  return claim.endsWith('*') ? stream.startsWith(claim.slice(0, -1)) : claim === stream;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/**
 * Viewer authorization (document 4 section 6). A first request presents a credential as
 * `?token=`: a media grant of this node, or a viewer token of the `auth_backend` (hs256 or jwks).
 * A valid one becomes a session ticket, signed with the rotating session keys, that the
 * playlist's URLs carry as `?t=`. Anything else is 403 `viewer_token_invalid`. Without an
 * `auth_backend` media is not protected and no ticket is needed.
 */
export class ViewerAccess {
  private jwks: { url: string; set: ReturnType<typeof createRemoteJWKSet> } | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly grants: MediaGrants,
    private readonly keys: SessionKeyRing,
  ) {}

  /** The claims a ticket for this use would carry; throws 403. null when media is unprotected. */
  async admit(backend: AuthBackend | undefined, use: MediaUse): Promise<TicketClaims | null> {
    if (!backend) return null;
    const refuse = errors.mediaForbidden('viewer_token_invalid', 'a valid viewer token for this stream is required');
    if (use.ticket) {
      const t = await this.keys.verifyTicket(use.ticket);
      if (!t || t.stream !== use.stream || !this.allows(t, use)) throw refuse;
      return t;
    }
    if (!use.token) throw refuse;
    let typ: string | undefined;
    try {
      typ = decodeProtectedHeader(use.token).typ;
    } catch {
      throw refuse;
    }
    const exp = Math.floor(this.clock.now() / 1000) + TICKET_TTL_SECS;
    if (typ === GRANT_TOKEN_TYPE) {
      const g = await this.grants.verify(use.token, {
        stream: use.stream,
        protocol: protocolOf(use.kind),
        address: use.address,
      });
      if (!g || !(INTENT_KINDS[g.intent] ?? []).includes(use.kind)) throw refuse;
      return {
        sid: randomUUID(),
        stream: use.stream,
        protocols: g.protocols,
        sub: 'admin',
        subject_kind: 'admin',
        subject_name: 'node administrator (media grant)',
        ip: g.ip,
        intent: g.intent,
        exp,
      };
    }
    const p = await this.verifyViewer(backend, use.token).catch(() => null);
    if (!p || p.typ !== 'viewer' || !streamClaimMatches(p.stream, use.stream)) throw refuse;
    const protocols = p.protocols;
    if (protocols !== undefined && !(Array.isArray(protocols) && protocols.includes(protocolOf(use.kind))))
      throw refuse;
    return {
      sid: randomUUID(),
      stream: use.stream,
      sub: str(p.sub) ?? '',
      protocols: Array.isArray(protocols) ? protocols.filter((x): x is string => typeof x === 'string') : undefined,
      subject_kind: str(p.subject_kind),
      subject_name: str(p.subject_name),
      camera_id: str(p.camera_id),
      exp,
    };
  }

  ticket(claims: TicketClaims): Promise<string> {
    const { exp, ...rest } = claims;
    return this.keys.issueTicket(rest, Math.max(1, exp - Math.floor(this.clock.now() / 1000)));
  }

  private allows(t: TicketClaims, use: MediaUse): boolean {
    if (t.protocols !== undefined && !t.protocols.includes(protocolOf(use.kind))) return false;
    if (t.ip !== undefined && t.ip !== use.address) return false;
    if (t.intent !== undefined && !(INTENT_KINDS[t.intent] ?? []).includes(use.kind)) return false;
    return true;
  }

  private async verifyViewer(backend: AuthBackend, token: string): Promise<JWTPayload> {
    const options = { currentDate: new Date(this.clock.now()), requiredClaims: ['exp'] };
    if (backend.kind === 'hs256') {
      return (await jwtVerify(token, new TextEncoder().encode(backend.secret), { ...options, algorithms: ['HS256'] }))
        .payload;
    }
    if (this.jwks?.url !== backend.url) this.jwks = { url: backend.url, set: createRemoteJWKSet(new URL(backend.url)) };
    return (await jwtVerify(token, this.jwks.set, options)).payload;
  }
}
