import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { hashPassword } from '../auth/password.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import { usersStore } from './users.store.js';

// Serialises bootstrap across plane processes that start together.
const BOOTSTRAP_LOCK = 724_201_003;

export class UsersService {
  constructor(private readonly db: Db, private readonly orgs: OrgsService) {}

  /** ARGUS_BOOTSTRAP_*: when no superadmin exists, create one in organisation `default`. Idempotent. */
  async bootstrap(creds: { login: string; password: string }): Promise<boolean> {
    const hash = await hashPassword(creds.password);
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`.execute(trx);
      if (await usersStore.anySuperadmin(trx)) return false;
      const orgId = await this.orgs.ensureDefault(trx);
      await usersStore.insert(trx, { id: randomUUID(), org_id: orgId, login: creds.login, name: creds.login, role: 'superadmin', password_hash: hash });
      return true;
    });
  }
}
