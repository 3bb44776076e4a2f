import type { Db } from '../db/database.js';

/** The only SQL of organisations. */
export const orgsStore = {
  async findByName(db: Db, name: string) {
    return db.selectFrom('orgs').selectAll().where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase())).executeTakeFirst();
  },

  async insert(db: Db, o: { id: string; name: string }) {
    await db.insertInto('orgs').values({
      ...o, max_cameras: null, max_users: null, attachment_quota_bytes: null, max_sessions_per_user: null,
      max_dashboards: null, max_reports: null, max_tags: null, max_event_templates: null, max_agents: null,
      max_agent_devices: null, max_agent_access_rules: null,
    }).execute();
  },
};
