import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Client } from './client.js';
import type { Db } from '../../src/plane/db/database.js';
import { hashPassword } from '../../src/plane/auth/password.js';

/** Direct seeding for tests that need organisations and users before exercising another domain. */
export async function seedOrg(db: Db, name: string): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('orgs')
    .values({
      id,
      name,
      max_cameras: null,
      max_users: null,
      attachment_quota_bytes: null,
      max_sessions_per_user: null,
      max_dashboards: null,
      max_reports: null,
      max_tags: null,
      max_event_templates: null,
      max_agents: null,
      max_agent_devices: null,
      max_agent_access_rules: null,
    })
    .execute();
  return id;
}

let cachedHash: Promise<string> | null = null;
export const SEED_PASSWORD = 'seed-password-1';

export async function seedUser(
  db: Db,
  orgId: string,
  role: 'superadmin' | 'admin' | 'user',
  login: string,
): Promise<{ id: string; login: string; password: string }> {
  cachedHash ??= hashPassword(SEED_PASSWORD);
  const id = randomUUID();
  await db
    .insertInto('users')
    .values({ id, org_id: orgId, login, name: login, role, password_hash: await cachedHash })
    .execute();
  return { id, login, password: SEED_PASSWORD };
}

/** POST /api/v1/events with a module token; every item must be accepted. Returns the event ids in item order. */
export async function sendEvents(mod: Client, items: unknown[]): Promise<string[]> {
  const r = await mod.post('/api/v1/events', { events: items });
  expect(r.status, r.text).toBe(200);
  return r.body.results.map((i: any) => {
    expect(i.id, JSON.stringify(i)).toBeDefined();
    return i.id as string;
  });
}

/** POST /api/v1/attachments of `size` bytes of `fill` as a JPEG; returns the ref. */
export async function uploadAttachment(mod: Client, size: number, fill = 7): Promise<string> {
  const r = await mod.req('POST', '/api/v1/attachments', Buffer.alloc(size, fill), { 'content-type': 'image/jpeg' });
  expect(r.status, r.text).toBe(201);
  return r.body.ref;
}
