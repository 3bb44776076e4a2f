import { iso } from '../../common/time.js';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { ApiError, errors } from '../errors.js';
import { isConnectionError } from '../db/health.js';
import { refuseControlCharacters, UNKNOWN_LOGIN } from './login-name.js';
import type { Principal } from '../http/principal.js';
import { channels, notify, type LiveBus } from '../live/bus.js';
import type { AuditService, AuditActor } from '../audit/audit.service.js';
import { authStore, kidOf, type SigningKey } from './auth.store.js';
import { verifyPassword, dummyHashPromise } from './password.js';
import { SessionCache } from './session-cache.js';
import type { SecurityLog } from './security-log.js';
import type { SessionTokens, VerifiedClaims } from './session-tokens.js';
import type { LoginThrottle } from './login-throttle.js';
import type { Job } from '../jobs/jobs.js';

export type AuthNews =
  { kind: 'keys_rotated' } | { kind: 'session_revoked'; sid: string } | { kind: 'user_revoked'; user_id: string };

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
  private readonly newsListeners: Array<(n: AuthNews) => void> = [];
  private readonly sessions = new SessionCache();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly log: Logger,
    /** The signing key and token checks (session-tokens.ts). */
    private readonly tokens: SessionTokens,
    /** The failed-login budgets (login-throttle.ts). */
    private readonly throttle: LoginThrottle,
    private readonly security: SecurityLog,
    private readonly opts: { sessionTtlSecs: number },
  ) {}

  /** Follows session news (rotation, revocation) published by any plane process. */
  subscribe(bus: LiveBus): void {
    bus.subscribe(
      channels.auth,
      (payload) => {
        const news = JSON.parse(payload) as AuthNews;
        this.forget(news);
        const after = news.kind === 'keys_rotated' ? this.tokens.reloadKey() : Promise.resolve();
        void after.then(() => {
          for (const fn of this.newsListeners) fn(news);
        });
      },
      () => {
        // Notifications may have been lost with the connection: confirm every session afresh.
        this.sessions.clear();
        void this.tokens.reloadKey().catch(() => {});
      },
    );
  }

  private forget(news: AuthNews): void {
    if (news.kind === 'keys_rotated') this.sessions.clear();
    else if (news.kind === 'user_revoked') {
      this.sessions.dropUser(news.user_id);
      this.tokens.userRevoked(news.user_id);
    } else {
      this.sessions.dropSession(news.sid);
      this.tokens.sessionRevoked(news.sid);
    }
  }

  /** A signed-in check without the database (GET /api/v1/version): see SessionTokens. */
  verifySignedIn(token: string, from?: { ip: string }): Promise<VerifiedClaims> {
    return this.tokens.verifySignedIn(token, from);
  }

  onNews(fn: (n: AuthNews) => void): void {
    this.newsListeners.push(fn);
  }

  /** Loads (or creates, once across processes) the signing key. */
  loadKey(): Promise<void> {
    return this.tokens.reloadKey();
  }

  currentKid(): string | null {
    return this.tokens.currentKid();
  }

  /**
   * Takes expired sessions off the prepared sessions_count (usage): expiry is no write, so a
   * job makes it one. Reads stay exact meanwhile by subtracting `expiredUncounted`.
   */
  sessionExpiryJob(): Job {
    return {
      name: 'auth.session_expiry',
      everyMs: 60_000,
      budgetMs: 5_000,
      run: async (deadline) => {
        while (
          this.clock.now() < deadline &&
          (await authStore.sweepExpired(this.db, new Date(this.clock.now()), 1000)) === 1000
        );
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
    const release = await this.throttle.reserve(loginKey, from.ip);
    try {
      return await this.checkedLogin(login, loginKey, password, from);
    } finally {
      release();
    }
  }

  /** A login under its reservation: the failure is counted before the reservation ends. */
  private async checkedLogin(
    login: string,
    loginKey: string,
    password: string,
    from: { ip: string; userAgent: string },
  ): Promise<LoginResult> {
    const user = await authStore.findUserByLogin(this.db, login);
    // An unknown login is checked against a dummy hash so both failures cost the same time.
    const ok = await verifyPassword(password, user?.password_hash ?? (await dummyHashPromise));
    const now = new Date(this.clock.now());
    if (!user || !ok || user.disabled) {
      await this.throttle.failed(loginKey, from.ip);
      // The attempted name only when it is a user's login (it may be a password typed there).
      const attempted = user ? user.login : UNKNOWN_LOGIN;
      const reason = !user ? 'unknown_login' : user.disabled ? 'disabled' : 'wrong_password';
      this.security.warn(this.log, 'auth.login_failed', { ip: from.ip, login: attempted, reason }, 'login failed');
      await this.db.transaction().execute((trx) =>
        this.audit.record(trx, {
          actor: {
            id: user?.id ?? null,
            name: attempted,
            role: user?.role ?? '',
            orgId: user?.org_id ?? null,
            ip: from.ip,
            userAgent: from.userAgent,
          },
          action: 'auth.login_failed',
          objectType: 'user',
          objectId: user?.id ?? null,
          objectName: attempted,
          params: { reason },
        }),
      );
      throw errors.invalidCredentials();
    }
    await this.throttle.succeeded(loginKey);
    const sid = randomUUID();
    const expiresAt = new Date(now.getTime() + this.opts.sessionTtlSecs * 1000);
    const { token, kid } = await this.tokens.sign(
      { sub: user.id, sid, org: user.org_id, role: user.role },
      now,
      expiresAt,
    );
    await this.db.transaction().execute(async (trx) => {
      await authStore.lockUserSessions(trx, user.id);
      await authStore.insertSession(trx, {
        id: sid,
        user_id: user.id,
        org_id: user.org_id,
        kid,
        created_at: now,
        expires_at: expiresAt,
        ip: from.ip,
        user_agent: from.userAgent.slice(0, 512),
      });
      const max = await authStore.maxSessionsPerUser(trx, user.org_id);
      // Evicted sessions end their open streams too, on every process.
      const evicted = max !== null ? await authStore.revokeOldestBeyond(trx, user.id, max, now) : [];
      for (const old of evicted) await this.announce(trx, { kind: 'session_revoked', sid: old });
      await this.audit.record(trx, {
        actor: {
          id: user.id,
          name: user.name,
          role: user.role,
          orgId: user.org_id,
          ip: from.ip,
          userAgent: from.userAgent,
        },
        action: 'auth.login',
        objectType: 'session',
        objectId: sid,
        objectName: user.login,
        params: {},
      });
    });
    return {
      token,
      expires_at: iso(expiresAt),
      user: {
        id: user.id,
        org_id: user.org_id,
        login: user.login,
        name: user.name,
        role: user.role,
        disabled: user.disabled,
      },
    };
  }

  /** Signature, key id, type and expiry only: for the routes that must not touch the database. */
  verifyToken(token: string, from?: { ip: string }): Promise<VerifiedClaims> {
    return this.tokens.verifyToken(token, from);
  }

  /** Full check: the token verifies and its session is live in the database. */
  async authenticate(
    token: string,
    from: { ip: string; userAgent: string },
    verified?: VerifiedClaims,
  ): Promise<Principal> {
    const claims = verified ?? (await this.verifyToken(token));
    const now = this.clock.now();
    let row = this.sessions.get(claims.sid, claims.kid, now);
    if (!row) {
      row = await authStore.findLiveSession(this.db, claims.sid, claims.kid, new Date(now));
      if (row) this.sessions.put(row, claims.kid, now);
    }
    if (!row || row.user_id !== claims.sub) throw errors.unauthorized();
    return {
      userId: row.user_id,
      orgId: row.org_id,
      role: row.role,
      login: row.login,
      name: row.name,
      sessionId: row.session_id,
      expiresAt: Math.min(row.expires_at.getTime(), claims.exp * 1000),
      ip: from.ip,
      userAgent: from.userAgent,
    };
  }

  async logout(p: Principal): Promise<void> {
    const now = new Date(this.clock.now());
    await this.db.transaction().execute(async (trx) => {
      await authStore.revokeSession(trx, p.sessionId, now);
      await this.audit.record(trx, {
        actor: actorOf(p),
        action: 'auth.logout',
        objectType: 'session',
        objectId: p.sessionId,
        objectName: p.login,
        params: {},
      });
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
        const next: SigningKey =
          scope === 'material'
            ? { materialId: randomBytes(6).toString('hex'), epoch: 1, secret: randomBytes(32) }
            : { ...current, epoch: current.epoch + 1 };
        await authStore.replaceKey(trx, next, now);
        await authStore.revokeAllSessions(trx, now);
        await this.audit.record(trx, {
          actor: actorOf(p),
          action: 'auth.keys_rotated',
          objectType: 'signing_key',
          objectId: null,
          objectName: kidOf(next),
          params: { scope },
        });
        await this.announce(trx, { kind: 'keys_rotated' });
        return kidOf(next);
      });
      await this.tokens.reloadKey();
      return { kid, scope };
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'key rotation failed');
      // A lost connection stays 503 db_unavailable (any endpoint, document 1); any other failure is rotate_failed.
      throw err instanceof ApiError || isConnectionError(err) ? err : errors.rotateFailed();
    }
  }
}

export function actorOf(p: Principal): AuditActor {
  return { id: p.userId, name: p.name, role: p.role, orgId: p.orgId, ip: p.ip, userAgent: p.userAgent };
}
