import type { Db } from '../db/database.js';
import type { LiveBus } from '../live/bus.js';
import { OrgTemplates } from './template.apply.js';
import { TEMPLATES_CHANNEL, templatesStore } from './templates.store.js';

/**
 * The templates intake applies, cached per organisation so that a batch costs a map lookup and
 * no query. A change commits a NOTIFY (TEMPLATES_CHANNEL, the organisation or `*` for system
 * templates) that drops the entry in every process; after a reconnection of the listener every
 * entry is dropped, since notices may have been missed meanwhile.
 */
export class TemplateCache {
  // The promise is stored when a load starts: a drop while it runs removes it, so the next
  // caller loads afresh and no stale load can be stored after the drop.
  private readonly byOrg = new Map<string, Promise<OrgTemplates>>();
  loads = 0;

  constructor(private readonly db: Db) {}

  /** `db`: a transaction in progress loads through itself (the embedded database has one connection). */
  forOrg(orgId: string, db: Db = this.db): Promise<OrgTemplates> {
    let p = this.byOrg.get(orgId);
    if (!p) {
      this.loads++;
      p = templatesStore.forIntake(db, orgId).then((rows) => new OrgTemplates(rows));
      p.catch(() => { if (this.byOrg.get(orgId) === p) this.byOrg.delete(orgId); });
      this.byOrg.set(orgId, p);
    }
    return p;
  }

  /** `*` (a system template changed) drops every organisation. */
  drop(orgId: string): void {
    if (orgId === '*') this.byOrg.clear();
    else this.byOrg.delete(orgId);
  }

  subscribe(bus: LiveBus): void {
    bus.subscribe(TEMPLATES_CHANNEL, (payload) => this.drop(payload), () => this.byOrg.clear());
  }
}
