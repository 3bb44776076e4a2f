import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { isUuid, pageOf, DEFAULT_LIMIT } from '../http/list.js';
import { readScope, recordScope } from '../rights/org-scope.js';
import { requireAdmin } from './rules.service.js';
import { deliveriesStore, type DeliveryRow } from './deliveries.store.js';
import { DELIVERY_WINDOW_MS } from './outbox.js';
import { expandAll, type EventFramesOf } from './outbox.expand.js';

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

export const deliveryJson = (d: DeliveryRow) => ({
  id: d.id,
  dedupe_key: d.dedupe_key,
  event_id: d.event_id,
  rule_id: d.rule_id,
  channel_id: d.channel_id,
  org_id: d.org_id,
  state: d.state,
  attempts: d.attempts,
  last_error: d.last_error,
  // Only a delivery still to send has a next attempt.
  next_attempt_at: d.state === 'pending' || d.state === 'failed' ? iso(d.next_attempt_at) : null,
  sent_at: iso(d.sent_at),
  created_at: iso(d.created_at)!,
});

export interface DeliveryListArgs {
  org?: string;
  after?: string;
  limit?: number;
  rule_id?: string;
  channel_id?: string;
  event_id?: string;
  state?: string;
  order?: 'oldest' | 'newest';
}

/** The delivery log (document 4 §13): administrators of the organisation, a superadmin any; requeue of a dead one. */
export class DeliveriesService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly wake: () => void,
    private readonly framesOf: EventFramesOf,
  ) {}

  async list(p: Principal, q: DeliveryListArgs) {
    requireAdmin(p);
    const orgId = readScope(p, q.org);
    const limit = q.limit ?? DEFAULT_LIMIT;
    // What the event writes recorded shows at once, not only after a worker's next round.
    await expandAll(this.db, this.clock.now(), this.framesOf, orgId);
    const low = (v: string | undefined) => v?.toLowerCase();
    const rows = await deliveriesStore.list(this.db, {
      orgId,
      after: low(q.after) ?? null,
      limit,
      rule_id: low(q.rule_id),
      channel_id: low(q.channel_id),
      event_id: low(q.event_id),
      state: q.state,
      newest: q.order === 'newest',
    });
    return pageOf(rows, limit, deliveryJson);
  }

  /** A dead delivery is due again at once with a new 24 h window; any other state: 409 delivery_not_dead. */
  async retry(p: Principal, id: string) {
    requireAdmin(p);
    const row = await this.db.transaction().execute(async (trx) => {
      const d = isUuid(id) ? await deliveriesStore.get(trx, id.toLowerCase(), true) : undefined;
      const scope = recordScope(p);
      if (!d || (scope !== null && d.org_id !== scope)) throw errors.notFound();
      if (d.state !== 'dead') throw errors.conflict('delivery_not_dead');
      const now = this.clock.now();
      return deliveriesStore.requeue(trx, d.id, new Date(now), new Date(now + DELIVERY_WINDOW_MS));
    });
    this.wake();
    return deliveryJson(row);
  }
}
