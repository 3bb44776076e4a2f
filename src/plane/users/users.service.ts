import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { pageOf, requireUuid, DEFAULT_LIMIT, type ListArgs } from '../http/list.js';
import { readScope, recordScope, writeScope } from '../rights/org-scope.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf, type AuthService } from '../auth/auth.service.js';
import { hashPassword } from '../auth/password.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import type { UserCreate, UserPatch } from './users.schemas.js';
import { usersStore, type UserRecord } from './users.store.js';

// Serialises bootstrap across plane processes that start together.
const BOOTSTRAP_LOCK = 724_201_003;
// What a user may change on its own record: never its role, organisation, login or state.
const SELF_FIELDS = new Set(['name', 'password']);

export const userRow = (u: UserRecord) => ({
  id: u.id,
  org_id: u.org_id,
  login: u.login,
  name: u.name,
  role: u.role,
  disabled: u.disabled,
});

/** The rights domain's part in a move: a user moved to another organisation loses the grants of the old one. */
export interface OrgChangeRule {
  clearGrants(trx: Db, userId: string): Promise<void>;
}

export class UsersService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly orgs: OrgsService,
    private readonly audit: AuditService,
    private readonly auth: AuthService,
    private readonly grants: OrgChangeRule,
  ) {}

  /** ARGUS_BOOTSTRAP_*: when no superadmin exists, create one in organisation `default`. Idempotent. */
  async bootstrap(creds: { login: string; password: string }): Promise<boolean> {
    const hash = await hashPassword(creds.password);
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`.execute(trx);
      if (await usersStore.anySuperadmin(trx)) return false;
      const orgId = await this.orgs.ensureDefault(trx);
      await usersStore.insert(trx, {
        id: randomUUID(),
        org_id: orgId,
        login: creds.login,
        name: creds.login,
        role: 'superadmin',
        password_hash: hash,
      });
      return true;
    });
  }

  /** The organisation of the first superadmin (the bootstrap one): home of the plane's events that belong to no organisation. */
  superadminOrg(db: Db): Promise<string | null> {
    return usersStore.superadminOrg(db);
  }

  /** Whether the organisation has users (they keep it: 409 org_not_empty). */
  async anyInOrg(db: Db, orgId: string): Promise<boolean> {
    return (await usersStore.countInOrg(db, orgId)) > 0;
  }

  /** Of `ids`, the enabled users of role `user` in the organisation (a dashboard's or report's audience). */
  async audience(db: Db, orgId: string, ids: string[]): Promise<Array<{ id: string; login: string; name: string }>> {
    return usersStore.audience(db, orgId, ids);
  }

  /** A user the caller may administer, for other domains (grants): 404 when unknown or foreign. */
  async visible(db: Db, p: Principal, rawId: string): Promise<UserRecord> {
    const u = await usersStore.get(db, requireUuid(rawId), recordScope(p));
    if (!u) throw errors.notFound();
    return u;
  }

  async list(p: Principal, q: ListArgs) {
    const orgId = readScope(p, q.org);
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = await usersStore.list(this.db, { orgId, after: q.after ?? null, limit });
    return pageOf(rows, limit, userRow);
  }

  async create(p: Principal, body: UserCreate) {
    const role = body.role ?? 'user';
    if (role === 'superadmin' && p.role !== 'superadmin') throw errors.forbidden();
    const orgId = writeScope(p, body.org_id);
    const hash = await hashPassword(body.password);
    const id = randomUUID();
    return this.db.transaction().execute(async (trx) => {
      await this.checkQuota(trx, orgId);
      const u: UserRecord = {
        id,
        org_id: orgId,
        login: body.login,
        name: body.name ?? body.login,
        role,
        disabled: body.disabled ?? false,
      };
      await usersStore.insert(trx, { ...u, password_hash: hash });
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId,
        action: 'user.create',
        objectType: 'user',
        objectId: id,
        objectName: u.login,
        params: { login: u.login, name: u.name, role, org_id: orgId, disabled: u.disabled },
      });
      return userRow(u);
    });
  }

  /**
   * Anyone may change its own name and password; everything else needs an administrator of the
   * user's organisation (or a superadmin), and only a superadmin touches a superadmin.
   */
  async update(p: Principal, rawId: string, body: UserPatch) {
    const id = requireUuid(rawId);
    const self = id === p.userId;
    const fields = Object.keys(body).filter((k) => body[k as keyof UserPatch] !== undefined);
    if (self && fields.some((f) => !SELF_FIELDS.has(f))) throw errors.forbidden();
    // An operator administers nobody; the same answer for any id, so it learns nothing from it.
    if (!self && p.role === 'user') throw errors.forbidden();
    if (body.role === 'superadmin' && p.role !== 'superadmin') throw errors.forbidden();
    const hash = body.password !== undefined ? await hashPassword(body.password) : undefined;

    return this.db.transaction().execute(async (trx) => {
      const before = await usersStore.get(trx, id, recordScope(p), { lock: true });
      if (!before) throw errors.notFound();
      if (before.role === 'superadmin' && p.role !== 'superadmin') throw errors.forbidden();
      const set: Partial<Omit<UserRecord, 'id'>> & { password_hash?: string } = {};
      for (const f of ['login', 'name', 'role', 'disabled'] as const) {
        if (body[f] !== undefined && body[f] !== before[f]) (set as Record<string, unknown>)[f] = body[f];
      }
      if (body.org_id !== undefined && body.org_id.toLowerCase() !== before.org_id) {
        set.org_id = writeScope(p, body.org_id);
        await this.checkQuota(trx, set.org_id);
      }
      if (hash) set.password_hash = hash;
      const changed = Object.keys(set).map((k) => (k === 'password_hash' ? 'password' : k));
      if (!changed.length) return userRow(before);
      await usersStore.update(trx, id, set, new Date(this.clock.now()));
      if (set.org_id) await this.grants.clearGrants(trx, id);
      // A disabled, demoted or moved user, or one whose password an administrator reset, is
      // signed out everywhere at once (sessions and open streams on every process).
      // A promotion too: the next login then carries the new role in its claims.
      if (set.disabled === true || set.role !== undefined || set.org_id || (hash && !self)) {
        await this.auth.revokeUser(trx, id);
      }
      const after = { ...before, ...set };
      const { password_hash: _omit, ...visibleSet } = set;
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: after.org_id,
        action: 'user.update',
        objectType: 'user',
        objectId: id,
        objectName: after.login,
        params: { changed, ...visibleSet },
      });
      return userRow(after);
    });
  }

  async delete(p: Principal, rawId: string): Promise<{ id: string; deleted: true }> {
    const id = requireUuid(rawId);
    if (id === p.userId) throw errors.forbidden();
    return this.db.transaction().execute(async (trx) => {
      const before = await usersStore.get(trx, id, recordScope(p), { lock: true });
      if (!before) throw errors.notFound();
      if (before.role === 'superadmin' && p.role !== 'superadmin') throw errors.forbidden();
      await this.auth.revokeUser(trx, id);
      await usersStore.delete(trx, id);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: before.org_id,
        action: 'user.delete',
        objectType: 'user',
        objectId: id,
        objectName: before.login,
        params: { login: before.login, role: before.role },
      });
      return { id, deleted: true as const };
    });
  }

  /** max_users of the organisation, counted under its row lock; an unknown organisation is a 400. */
  private async checkQuota(trx: Db, orgId: string): Promise<void> {
    const limits = await this.orgs.lockLimits(trx, orgId);
    if (!limits) throw errors.badRequest('unknown_org');
    if (limits.max_users !== null && (await usersStore.countInOrg(trx, orgId)) >= limits.max_users) {
      throw errors.quotaReached('max_users_reached');
    }
  }
}
