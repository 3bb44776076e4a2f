import { iso } from '../../common/time.js';
import { SignJWT, jwtVerify, decodeProtectedHeader } from 'jose';
import { createHash, randomBytes, randomUUID, webcrypto } from 'node:crypto';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { ApiError, errors } from '../errors.js';
import { isConnectionError } from '../db/health.js';
import { refuseControlCharacters, UNKNOWN_LOGIN } from './login-name.js';
import { AttemptReservations } from './login-reservation.js';
import type { Principal } from '../http/principal.js';
import { channels, notify, type LiveBus } from '../live/bus.js';
import type { AuditService, AuditActor } from '../audit/audit.service.js';
import { authStore, kidOf, type SigningKey } from './auth.store.js';
import { verifyPassword, dummyHashPromise } from './password.js';
import { SessionCache } from './session-cache.js';
import { SecurityLog } from './security-log.js';
import { LOGIN_THROTTLE_TABLE, loginThrottleStore, throttleClient } from './login-throttle.store.js';
import type { Job } from '../jobs/jobs.js';

const TOKEN_TYPE = 'argus-session+jwt';

export type AuthNews =
  | { kind: 'keys_rotated' }
  | { kind: 'session_revoked'; sid: string }
  | { kind: 'user_revoked'; user_id: string };

// About 3 MB of tokens at most; the oldest goes first.
const VERIFIED_TOKENS_MAX = 10_000;
const REVOKED_MAX = 50_000;

export interface VerifiedClaims { sub: string; sid: string; kid: string; exp: number; iat: number }

export interface LoginResult {
  token: string;
  expires_at: string;
  user: { id: string; org_id: string; login: string; name: string; role: string; disabled: boolean };
}

/**
 * Sessions: JWTs signed with the current key id and recorded in the database, so logout,
 * rotation, disabling and demotion take effect at once on every plane process.
 */
export class AuthService {
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
  private readonly newsListeners: Array<(n: AuthNews) => void> = [];
  private readonly sessions = new SessionCache();
  // Counted in the database, so that several plane processes share one budget of attempts.
  private readonly byLogin: RateLimiterPostgres;
  private readonly byAddress: RateLimiterPostgres;
  private readonly reservations = new AttemptReservations();
  private readonly security: SecurityLog;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly log: Logger,
    private readonly opts: { sessionTtlSecs: number; throttle: { attempts: number; windowSecs: number } },
  ) {
    const store = {
      storeClient: throttleClient(db), storeType: 'client', tableName: LOGIN_THROTTLE_TABLE, tableCreated: true,
      clearExpiredByTimeout: false, duration: opts.throttle.windowSecs,
    };
    this.byLogin = new RateLimiterPostgres({ ...store, keyPrefix: 'login', points: opts.throttle.attempts });
    this.byAddress = new RateLimiterPostgres({ ...store, keyPrefix: 'addr', points: opts.throttle.attempts * 4 });
    this.security = new SecurityLog(clock);
  }

  /** Follows session news (rotation, revocation) published by any plane process. */
  subscribe(bus: LiveBus): void {
    bus.subscribe(channels.auth, (payload) => {
      const news = JSON.parse(payload) as AuthNews;
      this.forget(news);
      const after = news.kind === 'keys_rotated' ? this.reloadKey() : Promise.resolve();
      void after.then(() => { for (const fn of this.newsListeners) fn(news); });
    }, () => {
      // Notifications may have been lost with the connection: confirm every session afresh.
      this.sessions.clear();
      void this.reloadKey().catch(() => {});
    });
  }

  private forget(news: AuthNews): void {
    if (news.kind === 'keys_rotated') this.sessions.clear();
    else if (news.kind === 'user_revoked') { this.sessions.dropUser(news.user_id); this.remember(this.revokedUsers, news.user_id); }
    else { this.sessions.dropSession(news.sid); this.remember(this.revokedSessions, news.sid); }
  }

  /** Kept for one session life: no token issued before the revocation outlives that. */
  private remember(set: Map<string, number>, id: string): void {
    const now = this.clock.now();
    if (set.size >= REVOKED_MAX) for (const [k, at] of set) if (now - at > this.opts.sessionTtlSecs * 1000) set.delete(k);
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

  onNews(fn: (n: AuthNews) => void): void { this.newsListeners.push(fn); }

  /** Loads (or creates, once across processes) the signing key. */
  loadKey(): Promise<void> { return this.reloadKey(); }

  private async reloadKey(): Promise<void> {
    let key = await authStore.loadKey(this.db);
    if (!key) {
      await authStore.insertKeyIfAbsent(this.db, { materialId: randomBytes(6).toString('hex'), epoch: 1, secret: randomBytes(32) });
      key = await authStore.loadKey(this.db);
    }
    const hmacKey = await webcrypto.subtle.importKey('raw', key!.secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    this.key = key!;
    this.hmacKey = hmacKey;
    this.verified.clear();
  }

  currentKid(): string | null { return this.key ? kidOf(this.key) : null; }

  /** Removes failed-login counters whose window has ended, in batches. */
  throttlePruneJob(): Job {
    return {
      name: 'auth.login_throttle_prune', everyMs: 600_000, budgetMs: 10_000,
      run: async (deadline) => {
        while (this.clock.now() < deadline && await loginThrottleStore.pruneExpired(this.db, this.clock.now(), 1000) === 1000);
      },
    };
  }

  /**
   * Takes expired sessions off the prepared sessions_count (usage): expiry is no write, so a
   * job makes it one. Reads stay exact meanwhile by subtracting `expiredUncounted`.
   */
  sessionExpiryJob(): Job {
    return {
      name: 'auth.session_expiry', everyMs: 60_000, budgetMs: 5_000,
      run: async (deadline) => {
        while (this.clock.now() < deadline && await authStore.sweepExpired(this.db, new Date(this.clock.now()), 1000) === 1000);
      },
    };
  }

  /** Expired sessions of an organisation that the expiry job has not yet taken off sessions_count. */
  expiredUncounted(orgId: string): Promise<number> {
    return authStore.countExpiredUnswept(this.db, orgId, new Date(this.clock.now()));
  }

  async login(login: string, password: string, from: { ip: string; userAgent: string }): Promise<LoginResult> {
    refuseControlCharacters(login);
    // Hashed: a key is at most 255 characters, and login names need not sit in the counters.
    const loginKey = createHash('sha256').update(login.toLowerCase()).digest('base64url');
    const release = await this.reservations.reserve([
      { name: 'login', limiter: this.byLogin, key: loginKey, limit: this.opts.throttle.attempts },
      { name: 'address', limiter: this.byAddress, key: from.ip, limit: this.opts.throttle.attempts * 4 },
    ], (full, retryAfter) => this.security.warn(this.log, 'auth.login_throttled', { ip: from.ip, budget: full.join(','), retry_after: retryAfter },
      'login refused: too many failed attempts', { thin: true }));
    try {
      return await this.checkedLogin(login, loginKey, password, from);
    } finally {
      release();
    }
  }

  /** A login under its reservation: the failure is counted before the reservation ends. */
  private async checkedLogin(login: string, loginKey: string, password: string, from: { ip: string; userAgent: string }): Promise<LoginResult> {
    const user = await authStore.findUserByLogin(this.db, login);
    // An unknown login is checked against a dummy hash so both failures cost the same time.
    const ok = await verifyPassword(password, user?.password_hash ?? (await dummyHashPromise));
    const now = new Date(this.clock.now());
    if (!user || !ok || user.disabled) {
      await Promise.all([
        this.byLogin.penalty(loginKey, 1).catch(() => {}),
        this.byAddress.penalty(from.ip, 1).catch(() => {}),
      ]);
      // The attempted name only when it is a user's login (it may be a password typed there).
      const attempted = user ? user.login : UNKNOWN_LOGIN;
      const reason = !user ? 'unknown_login' : user.disabled ? 'disabled' : 'wrong_password';
      this.security.warn(this.log, 'auth.login_failed', { ip: from.ip, login: attempted, reason }, 'login failed');
      await this.db.transaction().execute((trx) => this.audit.record(trx, {
        actor: { id: user?.id ?? null, name: attempted, role: user?.role ?? '', orgId: user?.org_id ?? null, ip: from.ip, userAgent: from.userAgent },
        action: 'auth.login_failed', objectType: 'user', objectId: user?.id ?? null, objectName: attempted,
        params: { reason },
      }));
      throw errors.invalidCredentials();
    }
    await this.byLogin.delete(loginKey).catch(() => {});
    const kid = this.requireKey();
    const sid = randomUUID();
    const expiresAt = new Date(now.getTime() + this.opts.sessionTtlSecs * 1000);
    const token = await new SignJWT({ sid, org: user.org_id, role: user.role })
      .setProtectedHeader({ alg: 'HS256', kid: kidOf(kid), typ: TOKEN_TYPE })
      .setSubject(user.id)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.hmacKey!);
    await this.db.transaction().execute(async (trx) => {
      await authStore.lockUserSessions(trx, user.id);
      await authStore.insertSession(trx, {
        id: sid, user_id: user.id, org_id: user.org_id, kid: kidOf(kid), created_at: now, expires_at: expiresAt,
        ip: from.ip, user_agent: from.userAgent.slice(0, 512),
      });
      const max = await authStore.maxSessionsPerUser(trx, user.org_id);
      // Evicted sessions end their open streams too, on every process.
      const evicted = max !== null ? await authStore.revokeOldestBeyond(trx, user.id, max, now) : [];
      for (const old of evicted) await this.announce(trx, { kind: 'session_revoked', sid: old });
      await this.audit.record(trx, {
        actor: { id: user.id, name: user.name, role: user.role, orgId: user.org_id, ip: from.ip, userAgent: from.userAgent },
        action: 'auth.login', objectType: 'session', objectId: sid, objectName: user.login, params: {},
      });
    });
    return {
      token,
      expires_at: iso(expiresAt),
      user: { id: user.id, org_id: user.org_id, login: user.login, name: user.name, role: user.role, disabled: user.disabled },
    };
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
    const key = this.key, hmacKey = this.hmacKey;
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
        algorithms: ['HS256'], typ: TOKEN_TYPE, currentDate: new Date(this.clock.now()),
      });
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number') throw new Error('claims');
      claims = { sub: payload.sub, sid: payload.sid, kid: header.kid, exp: payload.exp, iat: typeof payload.iat === 'number' ? payload.iat : 0 };
    } catch (err) {
      const reason = refusal(err);
      if (reason) this.security.warn(this.log, 'auth.token_refused', { ip: from?.ip ?? 'unknown', reason }, 'session token refused', { thin: true });
      throw errors.unauthorized();
    }
    // The key may have changed while jose was verifying: remember only under the key it used.
    if (this.hmacKey === hmacKey) {
      if (this.verified.size >= VERIFIED_TOKENS_MAX) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, claims);
    }
    return claims;
  }

  /** Full check: the token verifies and its session is live in the database. */
  async authenticate(token: string, from: { ip: string; userAgent: string }, verified?: VerifiedClaims): Promise<Principal> {
    const claims = verified ?? await this.verifyToken(token);
    const now = this.clock.now();
    let row = this.sessions.get(claims.sid, claims.kid, now);
    if (!row) {
      row = await authStore.findLiveSession(this.db, claims.sid, claims.kid, new Date(now));
      if (row) this.sessions.put(row, claims.kid, now);
    }
    if (!row || row.user_id !== claims.sub) throw errors.unauthorized();
    return {
      userId: row.user_id, orgId: row.org_id, role: row.role, login: row.login, name: row.name,
      sessionId: row.session_id, expiresAt: Math.min(row.expires_at.getTime(), claims.exp * 1000), ip: from.ip, userAgent: from.userAgent,
    };
  }

  async logout(p: Principal): Promise<void> {
    const now = new Date(this.clock.now());
    await this.db.transaction().execute(async (trx) => {
      await authStore.revokeSession(trx, p.sessionId, now);
      await this.audit.record(trx, { actor: actorOf(p), action: 'auth.logout', objectType: 'session', objectId: p.sessionId, objectName: p.login, params: {} });
      await this.announce(trx, { kind: 'session_revoked', sid: p.sessionId });
    });
  }

  /** Ends every session of a user (disabled, demoted, deleted) inside the caller's transaction. */
  async revokeUser(trx: Db, userId: string): Promise<void> {
    await authStore.revokeUserSessions(trx, userId, new Date(this.clock.now()));
    await this.announce(trx, { kind: 'user_revoked', user_id: userId });
  }

  /** Drops the cached sessions here at once, and tells every process (delivered at commit). */
  private async announce(trx: Db, news: AuthNews): Promise<void> {
    this.forget(news);
    await notify(trx, channels.auth, JSON.stringify(news));
  }

  /**
   * `kid` (any scope but `material`): a new key id over the same material (an epoch change), the
   * reply's `scope` being `kid` as document 1 says; `material`: new key material (the reply value
   * there is not shown; `material` is answered).
   */
  async rotateKeys(p: Principal, scope: 'material' | 'kid'): Promise<{ kid: string; scope: string }> {
    const now = new Date(this.clock.now());
    try {
      const kid = await this.db.transaction().execute(async (trx) => {
        const current = await authStore.loadKey(trx);
        if (!current) throw new Error('no signing key');
        const next: SigningKey = scope === 'material'
          ? { materialId: randomBytes(6).toString('hex'), epoch: 1, secret: randomBytes(32) }
          : { ...current, epoch: current.epoch + 1 };
        await authStore.replaceKey(trx, next, now);
        await authStore.revokeAllSessions(trx, now);
        await this.audit.record(trx, {
          actor: actorOf(p), action: 'auth.keys_rotated', objectType: 'signing_key', objectId: null, objectName: kidOf(next), params: { scope },
        });
        await this.announce(trx, { kind: 'keys_rotated' });
        return kidOf(next);
      });
      await this.reloadKey();
      return { kid, scope };
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'key rotation failed');
      // A lost connection stays 503 db_unavailable (any endpoint, document 1); any other failure is rotate_failed.
      throw err instanceof ApiError || isConnectionError(err) ? err : errors.rotateFailed();
    }
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

export function actorOf(p: Principal): AuditActor {
  return { id: p.userId, name: p.name, role: p.role, orgId: p.orgId, ip: p.ip, userAgent: p.userAgent };
}
