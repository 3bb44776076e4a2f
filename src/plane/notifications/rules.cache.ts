import type { Db } from '../db/database.js';
import { notify, type LiveBus } from '../live/bus.js';
import { rulesStore, type ActiveRule } from './rules.store.js';

/** Rule and channel writes name their organisation here; every plane process drops it from its cache. */
export const RULES_CHANNEL = 'argus_notification_rules';

/**
 * The enabled rules of each organisation (with their enabled channels), cached so that an event
 * write costs a map lookup and no query when nothing could match. A rule or channel write, and a
 * channel disabled by its receiver, commit a NOTIFY that drops the organisation in every
 * process; after a reconnection of the listener every entry is dropped (notices may have been
 * missed). As the template cache: the promise is stored when its load starts, and a drop while it
 * runs removes it, so no stale load is kept.
 */
export class RulesCache {
  private readonly byOrg = new Map<string, Promise<ActiveRule[]>>();
  loads = 0;

  constructor(private readonly db: Db) {}

  /** `db`: a transaction in progress loads through itself (the embedded database has one connection). */
  forOrg(orgId: string, db: Db = this.db): Promise<ActiveRule[]> {
    let p = this.byOrg.get(orgId);
    if (!p) {
      this.loads++;
      p = rulesStore.active(db, orgId);
      const mine = p;
      p.catch(() => {
        if (this.byOrg.get(orgId) === mine) this.byOrg.delete(orgId);
      });
      this.byOrg.set(orgId, p);
    }
    return p;
  }

  drop(orgId: string): void {
    this.byOrg.delete(orgId);
  }

  /** In the writing transaction: every process drops the organisation once it commits. */
  changed(trx: Db, orgId: string): Promise<void> {
    this.drop(orgId);
    return notify(trx, RULES_CHANNEL, orgId);
  }

  subscribe(bus: LiveBus): void {
    bus.subscribe(
      RULES_CHANNEL,
      (orgId) => this.drop(orgId),
      () => this.byOrg.clear(),
    );
  }
}
