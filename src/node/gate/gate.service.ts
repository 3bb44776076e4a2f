import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { AuthSettings } from '../config/config.types.js';
import type { Clock } from '../../common/clock.js';
import { epochSeconds } from '../../common/clock.js';
import {
  deriveKey,
  passwordFingerprint,
  passwordMatches,
  sameFingerprint,
  tokenFingerprint,
  type PasswordFingerprint,
} from './fingerprint.js';
import type { Principal } from './levels.js';

export const SESSION_LIFETIME_SECS = 12 * 3600;
export const WRONG_PASSWORD_DELAY_MS = 600;
const SESSION_TYP = 'argus-node-session+jwt';

/** Everything the gate knows about its credentials: fingerprints and derived keys, never the secrets. */
interface GateState {
  password?: PasswordFingerprint;
  /** Changes when the password changes, so a new password closes the sessions of the old one. */
  passwordVersion?: string;
  read?: Buffer;
  write?: Buffer;
  sessionKey: Uint8Array;
  persistentSessions: boolean;
  ipBind: boolean;
}

export interface SessionIssued {
  token: string;
  expires_at: number;
}

export class Gate {
  /** Used while `session_secret` is unset: sessions then die with the process, as documented. */
  private readonly processSecret = randomBytes(32);
  private state: GateState;

  constructor(
    private readonly clock: Clock,
    auth: AuthSettings,
  ) {
    this.state = this.compile(auth);
  }

  /** Hot application of a changed `auth { }` block. */
  configure(auth: AuthSettings): void {
    this.state = this.compile(auth);
  }

  private compile(auth: AuthSettings): GateState {
    const sessionKey = deriveKey(auth.session_secret ?? this.processSecret, 'admin-session');
    return {
      password: auth.admin_password !== undefined ? passwordFingerprint(auth.admin_password) : undefined,
      passwordVersion:
        auth.admin_password !== undefined
          ? Buffer.from(deriveKey(Buffer.from(sessionKey), `password:${auth.admin_password}`))
              .toString('base64url')
              .slice(0, 16)
          : undefined,
      read: auth.api_read_token !== undefined ? tokenFingerprint(auth.api_read_token) : undefined,
      write: auth.api_write_token !== undefined ? tokenFingerprint(auth.api_write_token) : undefined,
      sessionKey,
      persistentSessions: auth.session_secret !== undefined,
      ipBind: auth.admin_ip_bind,
    };
  }

  get enabled(): boolean {
    return this.state.password !== undefined || this.state.read !== undefined || this.state.write !== undefined;
  }

  get hasPassword(): boolean {
    return this.state.password !== undefined;
  }

  get hasStaticTokens(): boolean {
    return this.state.read !== undefined || this.state.write !== undefined;
  }

  get persistentSessions(): boolean {
    return this.state.persistentSessions;
  }

  /**
   * Identifies a bearer credential. `allowStatic` is false for the query fallback of the events
   * feed: a static token never counts when it comes from a URL.
   */
  async identify(bearer: string | undefined, address: string, allowStatic = true): Promise<Principal | null> {
    if (!this.enabled) return { kind: 'open' };
    if (!bearer) return null;
    if (allowStatic) {
      const fp = tokenFingerprint(bearer);
      // Both comparisons always run so timing does not tell which tier a guess came close to.
      const isRead = sameFingerprint(fp, this.state.read);
      const isWrite = sameFingerprint(fp, this.state.write);
      if (isWrite) return { kind: 'write_token' };
      if (isRead) return { kind: 'read_token' };
    }
    return this.verifySession(bearer, address);
  }

  private async verifySession(token: string, address: string): Promise<Principal | null> {
    const st = this.state;
    if (!st.password || token.split('.').length !== 3) return null;
    try {
      const { payload } = await jwtVerify(token, st.sessionKey, {
        algorithms: ['HS256'],
        typ: SESSION_TYP,
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['exp'],
      });
      if (payload.pv !== st.passwordVersion) return null;
      if (payload.ip !== undefined && payload.ip !== address) return null;
      return { kind: 'session', expiresAt: payload.exp as number };
    } catch {
      return null;
    }
  }

  async checkPassword(candidate: string): Promise<boolean> {
    const fp = this.state.password;
    return fp !== undefined && passwordMatches(candidate, fp);
  }

  async issueSession(address: string): Promise<SessionIssued> {
    const st = this.state;
    const now = epochSeconds(this.clock);
    const exp = now + SESSION_LIFETIME_SECS;
    const claims: Record<string, unknown> = { sub: 'admin', pv: st.passwordVersion };
    if (st.ipBind) claims.ip = address;
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: SESSION_TYP })
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(st.sessionKey);
    return { token, expires_at: exp };
  }
}
