import { SignJWT, jwtVerify, decodeProtectedHeader } from 'jose';
import { randomBytes, webcrypto } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import { authStore, kidOf, type SigningKey } from './auth.store.js';
import type { SecurityLog } from './security-log.js';

const TOKEN_TYPE = 'argus-session+jwt';

// About 3 MB of tokens at most; the oldest goes first.
const VERIFIED_TOKENS_MAX = 10_000;
const REVOKED_MAX = 50_000;

export interface VerifiedClaims {
  sub: string;
  sid: string;
  kid: string;
  exp: number;
  iat: number;
}

/**
 * The session tokens themselves: the signing key this process holds, signing and verifying with
 * it, and the revocations heard of. Apart from AuthService because none of it asks the sessions
 * table: these are the checks that must answer without the database (version, the scope's first
 * look at a bearer token); AuthService keeps the sessions, the logins and the news.
 */
export class SessionTokens {
  private key: SigningKey | null = null;
  /** The key imported once for WebCrypto: importing it on every verify cost more than the HMAC. */
  private hmacKey: webcrypto.CryptoKey | null = null;
  // Tokens that verified under the current key (emptied when the key is loaded): an HMAC check
  // costs more than the rest of a page read, and the same bytes verify the same way until the
  // key changes. Expiry is still checked on every use; the session itself by `authenticate`.
  private readonly verified = new Map<string, VerifiedClaims>();
  // Revocations heard of (id -> when), for the one signed-in check that reads no database.
  private readonly revokedSessions = new Map<string, number>();
  private readonly revokedUsers = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly security: SecurityLog,
    private readonly sessionTtlSecs: number,
  ) {}

  sessionRevoked(sid: string): void {
    this.remember(this.revokedSessions, sid);
  }

  userRevoked(userId: string): void {
    this.remember(this.revokedUsers, userId);
  }

  /** Kept for one session life: no token issued before the revocation outlives that. */
  private remember(set: Map<string, number>, id: string): void {
    const now = this.clock.now();
    if (set.size >= REVOKED_MAX) for (const [k, at] of set) if (now - at > this.sessionTtlSecs * 1000) set.delete(k);
    if (set.size >= REVOKED_MAX) set.delete(set.keys().next().value!);
    set.set(id, now);
  }

  /**
   * A signed-in check without the database (GET /api/v1/version): the signature and expiry, and
   * the revocations this process has heard of (logout, eviction, a disabled, demoted or deleted
   * user), here or by NOTIFY from another process. A process started after a revocation has
   * not heard of it; every route that reads the database sees it regardless.
   */
  async verifySignedIn(token: string, from?: { ip: string }): Promise<VerifiedClaims> {
    const claims = await this.verifyToken(token, from);
    if (this.revokedSessions.has(claims.sid)) throw errors.unauthorized();
    // iat has whole seconds: only tokens issued in an earlier second than the revocation are
    // surely the user's old sessions (a login in that same second keeps its token).
    const userRevokedAt = this.revokedUsers.get(claims.sub);
    if (userRevokedAt !== undefined && (claims.iat + 1) * 1000 <= userRevokedAt) throw errors.unauthorized();
    return claims;
  }

  /** Loads (or creates, once across processes) the signing key. */
  async reloadKey(): Promise<void> {
    let key = await authStore.loadKey(this.db);
    if (!key) {
      await authStore.insertKeyIfAbsent(this.db, {
        materialId: randomBytes(6).toString('hex'),
        epoch: 1,
        secret: randomBytes(32),
      });
      key = await authStore.loadKey(this.db);
    }
    const hmacKey = await webcrypto.subtle.importKey('raw', key!.secret, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    this.key = key!;
    this.hmacKey = hmacKey;
    this.verified.clear();
  }

  currentKid(): string | null {
    return this.key ? kidOf(this.key) : null;
  }

  /** A new session's token under the current key, and that key's id (recorded with the session). */
  async sign(
    claims: { sub: string; sid: string; org: string; role: string },
    issuedAt: Date,
    expiresAt: Date,
  ): Promise<{ token: string; kid: string }> {
    const key = this.requireKey();
    const token = await new SignJWT({ sid: claims.sid, org: claims.org, role: claims.role })
      .setProtectedHeader({ alg: 'HS256', kid: kidOf(key), typ: TOKEN_TYPE })
      .setSubject(claims.sub)
      .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.hmacKey!);
    return { token, kid: kidOf(key) };
  }

  private requireKey(): SigningKey {
    if (!this.key) throw errors.dbUnavailable();
    return this.key;
  }

  /**
   * Signature, key id, type and expiry only: for the routes that must not touch the database.
   * `from`: the caller's address, for the warn line of a token refused for other reasons than
   * its age (a forged or mangled one, or one of a retired key).
   */
  async verifyToken(token: string, from?: { ip: string }): Promise<VerifiedClaims> {
    const key = this.key,
      hmacKey = this.hmacKey;
    if (!key || !hmacKey) throw errors.unauthorized();
    const known = this.verified.get(token);
    // jose's rule: a token is expired once exp <= now in whole seconds.
    if (known) {
      if (known.exp > Math.floor(this.clock.now() / 1000)) return known;
      this.verified.delete(token);
      throw errors.unauthorized();
    }
    let claims: VerifiedClaims;
    try {
      const header = decodeProtectedHeader(token);
      if (header.kid !== kidOf(key)) throw new Error('unknown key id');
      const { payload } = await jwtVerify(token, hmacKey, {
        algorithms: ['HS256'],
        typ: TOKEN_TYPE,
        currentDate: new Date(this.clock.now()),
      });
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number')
        throw new Error('claims');
      claims = {
        sub: payload.sub,
        sid: payload.sid,
        kid: header.kid,
        exp: payload.exp,
        iat: typeof payload.iat === 'number' ? payload.iat : 0,
      };
    } catch (err) {
      const reason = refusal(err);
      if (reason)
        this.security.warn(
          this.log,
          'auth.token_refused',
          { ip: from?.ip ?? 'unknown', reason },
          'session token refused',
          { thin: true },
        );
      throw errors.unauthorized();
    }
    // The key may have changed while jose was verifying: remember only under the key it used.
    if (this.hmacKey === hmacKey) {
      if (this.verified.size >= VERIFIED_TOKENS_MAX) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, claims);
    }
    return claims;
  }
}

/** Why a session token was refused, for the log; null for an expired one (an ordinary end of a session). */
function refusal(err: unknown): string | null {
  const code = (err as { code?: unknown }).code;
  if (code === 'ERR_JWT_EXPIRED') return null;
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') return 'bad_signature';
  if ((err as Error).message === 'unknown key id') return 'unknown_key';
  return 'malformed';
}
