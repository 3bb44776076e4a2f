import { iso } from '../../common/time.js';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { pgCode, UNIQUE_VIOLATION } from '../db/pg-errors.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { pageOf, requireUuid, DEFAULT_LIMIT } from '../http/list.js';
import { readScope, recordScope, writeScope } from '../rights/org-scope.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import { SecurityLog } from '../auth/security-log.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import { moduleTokensStore, type ModuleTokenCredential, type ModuleTokenRecord } from './module-tokens.store.js';
import type { ModuleTokenCreate, ModuleTokenListArgs, ModuleTokenPatch } from './module-tokens.schemas.js';
import type { ModuleTokenState } from './module-tokens.types.js';
import { channels, notify, type LiveBus } from '../live/bus.js';

// The record type other domains use, so that they import this service and never the store.
export type { ModuleTokenCredential } from './module-tokens.store.js';

export const SECRET_PREFIX = 'amt_';
const RESERVED = /^__/;
// last_used_at is a hint, not a log: written at most once a minute per token.
const TOUCH_EVERY_MS = 60_000;
// authenticateCached: a cached token is read again from the database after this long without a
// statement that checked it. Only its rate_limit and last_used_at can be this old: whether it
// still accepts events is checked by the statement that accepts them.
const CACHE_FRESH_MS = 1000;
const CACHE_MAX = 10_000;

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function newSecret(): { secret: string; hash: Buffer } {
  const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashSecret(secret) };
}

export function tokenRow(r: ModuleTokenRecord) {
  return {
    id: r.id,
    org_id: r.org_id,
    name: r.name,
    rate_limit: r.rate_limit,
    enabled: r.enabled,
    created_at: iso(r.created_at),
    last_used_at: r.last_used_at ? iso(r.last_used_at) : null,
  };
}
export type TokenRow = ReturnType<typeof tokenRow>;

/**
 * Module tokens (document 1): bearer secrets of external analytics modules, a credential space
 * separate from sessions. Only the SHA-256 of a secret is stored; the secret is shown once.
 * Every authentication reads the database, so a rotation or a disable acts at once in every
 * plane process.
 */
export class ModuleTokensService {
  private readonly security: SecurityLog;
  /** authenticateCached's tokens by secret hash (hex), with when the database last confirmed them. */
  private readonly cached = new Map<string, { token: ModuleTokenCredential; at: number }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly orgs: OrgsService,
    private readonly audit: AuditService,
  ) {
    this.security = new SecurityLog(clock);
  }

  async list(p: Principal, q: ModuleTokenListArgs) {
    const orgId = readScope(p, q.org);
    if (q.q !== undefined && [...q.q].length > 128) throw errors.badRequest('query_too_long');
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = await moduleTokensStore.list(this.db, { orgId, after: q.after ?? null, limit, q: q.q || null });
    return pageOf(rows, limit, tokenRow);
  }

  async create(p: Principal, body: ModuleTokenCreate): Promise<TokenRow & { secret: string }> {
    checkName(body.name);
    const orgId = writeScope(p, body.org_id);
    const { secret, hash } = newSecret();
    const now = new Date(this.clock.now());
    const id = randomUUID();
    const rateLimit = body.rate_limit ?? null;
    return this.write(async (trx) => {
      if (!(await this.orgs.exists(trx, orgId))) throw errors.badRequest('unknown_org');
      await moduleTokensStore.insert(trx, {
        id,
        org_id: orgId,
        name: body.name,
        rate_limit: rateLimit,
        secret_sha256: hash,
        created_at: now,
      });
      const row = (await moduleTokensStore.get(trx, id, null))!;
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId,
        action: 'token.create',
        objectType: 'module_token',
        objectId: id,
        objectName: body.name,
        params: { name: body.name, rate_limit: rateLimit, org_id: orgId },
      });
      return { ...tokenRow(row), secret };
    });
  }

  async update(p: Principal, rawId: string, body: ModuleTokenPatch): Promise<TokenRow> {
    const id = requireUuid(rawId);
    if (body.name !== undefined) checkName(body.name);
    return this.write(async (trx) => {
      const before = await moduleTokensStore.get(trx, id, recordScope(p), { lock: true });
      if (!before) throw errors.notFound();
      const set: ModuleTokenPatch = {};
      if (body.name !== undefined && body.name !== before.name) set.name = body.name;
      if (body.rate_limit !== undefined && body.rate_limit !== before.rate_limit) set.rate_limit = body.rate_limit;
      if (body.enabled !== undefined && body.enabled !== before.enabled) set.enabled = body.enabled;
      if (!Object.keys(set).length) return tokenRow(before);
      await moduleTokensStore.update(trx, id, set, new Date(this.clock.now()));
      await changed(trx, id);
      const after = (await moduleTokensStore.get(trx, id, null))!;
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: before.org_id,
        action: 'token.update',
        objectType: 'module_token',
        objectId: id,
        objectName: after.name,
        params: {
          changed: Object.keys(set),
          ...set,
          ...(set.name !== undefined ? { previous_name: before.name } : {}),
        },
      });
      return tokenRow(after);
    }, id);
  }

  /** A new secret; the old one stops authenticating with the commit (no overlap). */
  async rotate(p: Principal, rawId: string): Promise<TokenRow & { secret: string }> {
    const id = requireUuid(rawId);
    const { secret, hash } = newSecret();
    return this.write(async (trx) => {
      const before = await moduleTokensStore.get(trx, id, recordScope(p), { lock: true });
      if (!before) throw errors.notFound();
      await moduleTokensStore.update(trx, id, { secret_sha256: hash }, new Date(this.clock.now()));
      await changed(trx, id);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: before.org_id,
        action: 'token.rotate',
        objectType: 'module_token',
        objectId: id,
        objectName: before.name,
        params: {},
      });
      return { ...tokenRow(before), secret };
    }, id);
  }

  /** Accepted events stay; open intervals of this token are then closed by an administrator. */
  async delete(p: Principal, rawId: string): Promise<{ id: string; deleted: true }> {
    const id = requireUuid(rawId);
    return this.write(async (trx) => {
      const before = await moduleTokensStore.get(trx, id, recordScope(p), { lock: true });
      if (!before) throw errors.notFound();
      await moduleTokensStore.delete(trx, id);
      await changed(trx, id);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: before.org_id,
        action: 'token.delete',
        objectType: 'module_token',
        objectId: id,
        objectName: before.name,
        params: {},
      });
      return { id, deleted: true as const };
    }, id);
  }

  /**
   * The tokens of a deleted organisation, in the deleting transaction: checked on every request,
   * they are refused from its commit on. Accepted events stay for the archive cleanup.
   */
  deleteOfOrg(trx: Db, orgId: string): Promise<number> {
    return moduleTokensStore.deleteOfOrg(trx, orgId);
  }

  /** The enabled token a bearer secret names, or undefined. */
  async authenticate(secret: string): Promise<ModuleTokenCredential | undefined> {
    if (!secret.startsWith(SECRET_PREFIX) || secret.length > 128) return undefined;
    return moduleTokensStore.bySecret(this.db, hashSecret(secret));
  }

  /**
   * The token a bearer secret names, from this process's cache when the database confirmed it
   * less than CACHE_FRESH_MS ago, else read (and cached). The credential carries its
   * `secret_sha256`: the caller must accept events on it only through a statement that checks the
   * token is still enabled with that hash (eventsStore.insertAlone) or after `verify`, and report
   * what it found with `confirmed`. Event intake's single-event requests then cost one statement,
   * not two, and a disable, rotation or deletion still refuses every statement that starts after
   * its commit, in every process.
   */
  async authenticateCached(secret: string): Promise<ModuleTokenCredential | undefined> {
    if (!secret.startsWith(SECRET_PREFIX) || secret.length > 128) return undefined;
    const hash = hashSecret(secret);
    const key = hash.toString('hex');
    const hit = this.cached.get(key);
    if (hit && this.clock.now() - hit.at < CACHE_FRESH_MS) return { ...hit.token, secret_sha256: hash };
    const at = this.clock.now();
    const token = await moduleTokensStore.bySecret(this.db, hash);
    if (!token) {
      this.cached.delete(key);
      return undefined;
    }
    this.remember(key, token, at);
    return { ...token, secret_sha256: hash };
  }

  /**
   * What a statement that checked a cached credential found (null: the token is disabled,
   * rotated or gone); `at` is when the statement was sent (its snapshot is no older).
   */
  confirmed(t: ModuleTokenCredential, state: ModuleTokenState | null, at: number): void {
    if (!t.secret_sha256) return;
    const key = Buffer.from(t.secret_sha256).toString('hex');
    if (!state) {
      this.cached.delete(key);
      return;
    }
    const hit = this.cached.get(key);
    if (hit && hit.at > at) return;
    const { secret_sha256: _hash, ...token } = t;
    this.remember(key, { ...token, ...state }, at);
  }

  /** For a cached credential, whether the token is still enabled with that secret (read in `db`); true for one read for this request. */
  async verify(t: ModuleTokenCredential, db: Db = this.db): Promise<boolean> {
    if (!t.secret_sha256) return true;
    const at = this.clock.now();
    const found = await moduleTokensStore.bySecret(db, t.secret_sha256);
    const ok = found?.id === t.id;
    this.confirmed(t, ok ? found! : null, at);
    return ok;
  }

  /** Follows the token changes of every plane process (their rate limits apply at once). */
  subscribe(bus: LiveBus): void {
    bus.subscribe(
      channels.moduleTokens,
      (id) => this.forget(id),
      // Notices may have been lost with the connection.
      () => this.cached.clear(),
    );
  }

  private forget(id: string): void {
    for (const [key, hit] of this.cached) if (hit.token.id === id) this.cached.delete(key);
  }

  private remember(key: string, token: ModuleTokenCredential, at: number): void {
    // Entries of tokens no longer used are dropped all at once past the bound (re-read on next use).
    if (this.cached.size >= CACHE_MAX && !this.cached.has(key)) this.cached.clear();
    this.cached.set(key, { token, at });
  }

  /**
   * A bearer the intake or close scope refused, as a warn line of the plane's log (issue 25, item
   * 16): the address, the route and why, at most once a minute per address; never the secret.
   */
  noteRefused(
    log: Logger,
    ip: string,
    route: string,
    reason: 'missing' | 'not_a_module_token' | 'unknown_or_disabled',
  ): void {
    this.security.warn(log, 'module_token.refused', { ip, route, reason }, 'module token refused', { thin: true });
  }

  /** Whether touch() would write (the token's use was last recorded over a minute ago). */
  touchDue(t: ModuleTokenCredential): boolean {
    return !t.last_used_at || this.clock.now() - new Date(t.last_used_at).getTime() >= TOUCH_EVERY_MS;
  }

  /** Records use inside the caller's transaction, at most once a minute per token. */
  async touch(trx: Db, t: ModuleTokenCredential): Promise<void> {
    if (!this.touchDue(t)) return;
    const now = this.clock.now();
    await moduleTokensStore.touch(trx, t.id, new Date(now));
    // The cache holds it too, or every request of the next CACHE_FRESH_MS would take the full write.
    if (t.secret_sha256) {
      const hit = this.cached.get(Buffer.from(t.secret_sha256).toString('hex'));
      if (hit) hit.token = { ...hit.token, last_used_at: new Date(now) };
    }
  }

  /** Creates a reserved (`__`) token for the plane's own producers and tests; invisible in the routes. */
  async createReserved(
    orgId: string,
    name: string,
    rateLimit: number | null = null,
  ): Promise<{ id: string; secret: string }> {
    if (!RESERVED.test(name)) throw new Error('reserved token names start with __');
    const { secret, hash } = newSecret();
    const id = randomUUID();
    await moduleTokensStore.insert(this.db, {
      id,
      org_id: orgId,
      name,
      rate_limit: rateLimit,
      secret_sha256: hash,
      created_at: new Date(this.clock.now()),
    });
    return { id, secret };
  }

  /** A change to token `id` (its notice queued by `changed`): this process's cache forgets it at commit, others at the notice. */
  private async write<T>(fn: (trx: Db) => Promise<T>, id?: string): Promise<T> {
    try {
      const value = await this.db.transaction().execute(fn);
      if (id !== undefined) this.forget(id);
      return value;
    } catch (err) {
      if (pgCode(err) === UNIQUE_VIOLATION) throw errors.alreadyExists();
      throw err;
    }
  }
}

/** Queues the change notice of token `id` in its transaction (delivered to every plane process at commit). */
function changed(trx: Db, id: string): Promise<void> {
  return notify(trx, channels.moduleTokens, id);
}

function checkName(name: string): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name) || !name.trim()) throw errors.badRequest('bad_name');
  if (RESERVED.test(name)) throw errors.badRequest('reserved_name');
}
