import type { Db } from '../db/database.js';
import type { LiveBus } from '../live/bus.js';
import { OrgTemplates } from './template.apply.js';
import { TEMPLATES_CHANNEL, templatesStore, type TemplateRecord } from './templates.store.js';

/** Templates kept by id for cards; past this many the map starts over (ids are few in practice). */
const BY_ID_MAX = 10_000;

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
  // The template a card names, enabled or not; any change drops them all (changes are rare).
  private readonly byIdMap = new Map<string, Promise<TemplateRecord | undefined>>();
  loads = 0;
  idLoads = 0;

  constructor(private readonly db: Db) {}

  /** `db`: a transaction in progress loads through itself (the embedded database has one connection). */
  forOrg(orgId: string, db: Db = this.db): Promise<OrgTemplates> {
    let p = this.byOrg.get(orgId);
    if (!p) {
      this.loads++;
      p = templatesStore.forIntake(db, orgId).then((rows) => new OrgTemplates(rows));
      p.catch(() => {
        if (this.byOrg.get(orgId) === p) this.byOrg.delete(orgId);
      });
      this.byOrg.set(orgId, p);
    }
    return p;
  }

  /** One template by id as stored now (undefined when there is none), for the event card. */
  byId(id: string): Promise<TemplateRecord | undefined> {
    let p = this.byIdMap.get(id);
    if (!p) {
      this.idLoads++;
      if (this.byIdMap.size >= BY_ID_MAX) this.byIdMap.clear();
      p = templatesStore.get(this.db, id);
      p.catch(() => {
        if (this.byIdMap.get(id) === p) this.byIdMap.delete(id);
      });
      this.byIdMap.set(id, p);
    }
    return p;
  }

  /** `*` (a system template changed) drops every organisation. */
  drop(orgId: string): void {
    if (orgId === '*') this.byOrg.clear();
    else this.byOrg.delete(orgId);
    this.byIdMap.clear();
  }

  subscribe(bus: LiveBus): void {
    bus.subscribe(
      TEMPLATES_CHANNEL,
      (payload) => this.drop(payload),
      () => {
        this.byOrg.clear();
        this.byIdMap.clear();
      },
    );
  }
}
