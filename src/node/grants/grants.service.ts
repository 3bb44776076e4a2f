import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../../common/clock.js';
import { epochSeconds } from '../../common/clock.js';

export const GRANT_TTL_SECS = 300;
export const GRANT_TOKEN_TYPE = 'argus-media-grant+jwt';
export const GRANT_TOKEN_VERSION = 1;

export const INTENTS = ['live', 'publish', 'dvr', 'vod', 'preview', 'export', 'timeshift'] as const;
export type Intent = (typeof INTENTS)[number];
/** The protocol names a viewer credential can carry; `api` exists there but is never a media grant's. */
export const PROTOCOLS = [
  'hls',
  'llhls',
  'dash',
  'mse',
  'webrtc',
  'whep',
  'whip',
  'rtsp',
  'rtmp',
  'srt',
  // fMP4 over a WebSocket (GET /{stream}/live.ws, document 4 section 14): a `live` grant may carry it.
  'ws',
  'api',
] as const;
const HLS_ONLY: Intent[] = ['dvr', 'vod', 'preview', 'export', 'timeshift'];
export const STREAM_PATH = /^[A-Za-z0-9][A-Za-z0-9_.-]*(\/[A-Za-z0-9][A-Za-z0-9_.-]*)*$/;

export interface GrantRequest {
  stream: string;
  intent: Intent;
  protocols: string[];
}

export interface MediaGrant {
  token: string;
  expires_at: number;
  server_time: number;
  ttl_secs: number;
  session_expires_at: number;
}

export interface GrantClaims extends GrantRequest {
  ip: string;
  exp: number;
}

/** The intent/protocol table of document 3; returns why a request is invalid, or null. */
export function grantProblem(req: GrantRequest): string | null {
  const { stream, intent, protocols } = req;
  if (stream.length > 256 || !STREAM_PATH.test(stream))
    return 'stream must be a stream path (letters, digits, _ . - and / between segments)';
  if (intent === 'vod' && !stream.startsWith('vod/')) return 'for intent vod the stream must start with vod/';
  if (protocols.length < 1 || protocols.length > 8) return 'protocols must hold 1 to 8 values';
  if (new Set(protocols).size !== protocols.length) return 'protocols must be unique';
  const unknown = protocols.find((p) => !(PROTOCOLS as readonly string[]).includes(p));
  if (unknown !== undefined) return `unknown protocol "${unknown}"`;
  if (protocols.includes('api')) return 'protocols cannot include api';
  if (intent === 'live' && protocols.includes('whip')) return 'intent live cannot include whip';
  if (intent === 'publish' && (protocols.length !== 1 || protocols[0] !== 'whip'))
    return 'intent publish must have exactly ["whip"]';
  if (HLS_ONLY.includes(intent) && (protocols.length !== 1 || protocols[0] !== 'hls'))
    return `intent ${intent} allows only hls`;
  return null;
}

/**
 * Media grants for the built-in player. A key of their own (never the session key, never the
 * auth_backend secret) and a token type of their own: the media path recognises a grant by its
 * type and checks it here, so a grant never reaches the client authorization backend.
 */
export class MediaGrants {
  private readonly key = new Uint8Array(randomBytes(32));

  constructor(private readonly clock: Clock) {}

  async issue(req: GrantRequest, address: string, sessionExpiresAt: number): Promise<MediaGrant> {
    const now = epochSeconds(this.clock);
    const exp = now + GRANT_TTL_SECS;
    const token = await new SignJWT({
      ver: GRANT_TOKEN_VERSION,
      stream: req.stream,
      intent: req.intent,
      protocols: [...req.protocols].sort(),
      ip: address,
    })
      .setProtectedHeader({ alg: 'HS256', typ: GRANT_TOKEN_TYPE })
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.key);
    return { token, expires_at: exp, server_time: now, ttl_secs: GRANT_TTL_SECS, session_expires_at: sessionExpiresAt };
  }

  /** For the media path: the grant must match the exact stream, include the protocol and come from its address. */
  async verify(token: string, use: { stream: string; protocol: string; address: string }): Promise<GrantClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        typ: GRANT_TOKEN_TYPE,
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['exp'],
      });
      const claims = payload as unknown as GrantClaims & { ver: number };
      if (claims.ver !== GRANT_TOKEN_VERSION) return null;
      if (claims.stream !== use.stream || claims.ip !== use.address || !claims.protocols.includes(use.protocol))
        return null;
      return claims;
    } catch {
      return null;
    }
  }
}
