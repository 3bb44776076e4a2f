import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/plane/db/database.js';
import { hashPassword } from '../../src/plane/auth/password.js';

/** Direct seeding for tests that need organisations and users before exercising another domain. */
export async function seedOrg(db: Db, name: string): Promise<string> {
  const id = randomUUID();
  await db.insertInto('orgs').values({
    id, name, max_cameras: null, max_users: null, attachment_quota_bytes: null, max_sessions_per_user: null,
    max_dashboards: null, max_reports: null, max_tags: null, max_event_templates: null, max_agents: null,
    max_agent_devices: null, max_agent_access_rules: null,
  }).execute();
  return id;
}

let cachedHash: Promise<string> | null = null;
export const SEED_PASSWORD = 'seed-password-1';

export async function seedUser(db: Db, orgId: string, role: 'superadmin' | 'admin' | 'user', login: string): Promise<{ id: string; login: string; password: string }> {
  cachedHash ??= hashPassword(SEED_PASSWORD);
  const id = randomUUID();
  await db.insertInto('users').values({ id, org_id: orgId, login, name: login, role, password_hash: await cachedHash }).execute();
  return { id, login, password: SEED_PASSWORD };
}
