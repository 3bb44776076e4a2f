import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify } from 'jose';
import type { Clock } from '../../common/clock.js';
import { epochSeconds } from '../../common/clock.js';
import { deriveKey } from '../gate/fingerprint.js';

export const KEY_WINDOW = 3;
const TICKET_TYPE = 'argus-session-ticket+jwt';

interface Key {
  kid: string;
  key: Uint8Array;
}

export interface TicketClaims {
  stream: string;
  protocols?: string[];
  sub: string;
  exp: number;
  /** Viewer session the ticket belongs to (GET /api/v1/sessions). */
  sid?: string;
  /** Set when the ticket came from a media grant: the grant's client address and intent bind it. */
  ip?: string;
  intent?: string;
  subject_kind?: string;
  subject_name?: string;
  camera_id?: string;
}

/**
 * Signing keys for session tickets (what a viewer token becomes after its first media request).
 * Rotation puts a new key first and keeps at most KEY_WINDOW keys for verification, so running
 * sessions survive one or two rotations and die on the third. In a cluster the key comes from
 * `session_keys { secret }` and must be the same on every node, so it is not rotated here.
 */
export class SessionKeyRing {
  private keys: Key[] = [];
  private clusterSecret: string | undefined;

  constructor(private readonly clock: Clock) {
    this.keys = [fresh()];
  }

  /** Hot application of `session_keys { secret }`. */
  configure(clusterSecret: string | undefined): void {
    if (clusterSecret === this.clusterSecret) return;
    this.clusterSecret = clusterSecret;
    this.keys =
      clusterSecret !== undefined ? [{ kid: 'cluster', key: deriveKey(clusterSecret, 'session-ticket') }] : [fresh()];
  }

  rotate(): { kid: string; keys_in_window: number } {
    const key = fresh();
    this.keys = [key, ...this.keys].slice(0, KEY_WINDOW);
    return { kid: key.kid, keys_in_window: this.keys.length };
  }

  get size(): number {
    return this.keys.length;
  }

  async issueTicket(claims: Omit<TicketClaims, 'exp'>, ttlSecs: number): Promise<string> {
    const now = epochSeconds(this.clock);
    const { kid, key } = this.keys[0];
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: TICKET_TYPE, kid })
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSecs)
      .sign(key);
  }

  async verifyTicket(token: string): Promise<TicketClaims | null> {
    try {
      const { kid } = decodeProtectedHeader(token);
      const key = this.keys.find((k) => k.kid === kid);
      if (!key) return null;
      const { payload } = await jwtVerify(token, key.key, {
        algorithms: ['HS256'],
        typ: TICKET_TYPE,
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['exp'],
      });
      return payload as unknown as TicketClaims;
    } catch {
      return null;
    }
  }
}

function fresh(): Key {
  return { kid: randomUUID(), key: new Uint8Array(randomBytes(32)) };
}
