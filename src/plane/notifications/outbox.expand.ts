import { v7 as uuidv7 } from 'uuid';
import type { Db } from '../db/database.js';
import type { EventFrame } from '../events/log/events.frames.js';
import { channelsStore } from './channels.store.js';
import { deliveriesStore, type NewDelivery } from './deliveries.store.js';
import { dedupeKey } from './match.js';
import { decodePlan } from './outbox.plan.js';
import { outboxStore } from './outbox.store.js';
import { DELIVERY_WINDOW_MS } from './outbox.js';
import { rulesStore } from './rules.store.js';

/** Plans one transaction takes: a claim's batch stays fed and the transaction stays short. */
export const PLANS_PER_ROUND = 8;

/** The frames of stored events by id, as the event log reads them (an absent id: removed since). */
export type EventFramesOf = (db: Db, ids: string[]) => Promise<Map<string, EventFrame>>;

/**
 * Turns the outbox's recorded plans into delivery rows (document 4 §13), in one transaction that
 * takes the plans (FOR UPDATE SKIP LOCKED, so processes never take the same one) and writes their
 * deliveries: a crash before the commit leaves the plans to the next taker, and a dedupe_key
 * already written is left as it is. Each delivery is due from its event write, with its 24 h
 * window from then, and carries its event's frame as the log reads it now (a moment after the
 * write). Nothing is sent of an event removed since, nor to a rule or channel deleted since;
 * those still there are held to the commit, so a delete that comes meanwhile waits and then drops
 * these rows with the rest of its unsent ones. Returns how many plans it took (PLANS_PER_ROUND:
 * more may wait).
 */
export async function expandOutbox(
  db: Db,
  now: number,
  framesOf: EventFramesOf,
  orgId: string | null = null,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const plans = await outboxStore.takePlans(trx, orgId, PLANS_PER_ROUND);
    if (!plans.length) return 0;
    const items = plans.map((p) => decodePlan(p));
    const all = items.flat();
    const rules = new Set(await rulesStore.holdExisting(trx, [...new Set(all.map((d) => d.rule_id))]));
    const channels = new Set(await channelsStore.holdExisting(trx, [...new Set(all.map((d) => d.channel_id))]));
    const frames = await framesOf(trx, [...new Set(plans.flatMap((p) => p.event_ids))]);
    const json = new Map<string, string>();
    for (const [n, p] of plans.entries()) {
      const rows: NewDelivery[] = [];
      for (const d of items[n]!) {
        const frame = frames.get(d.event_id);
        if (!frame || !rules.has(d.rule_id) || !channels.has(d.channel_id)) continue;
        let event = json.get(d.event_id);
        if (event === undefined) json.set(d.event_id, (event = JSON.stringify(frame)));
        rows.push({
          id: uuidv7({ msecs: now }),
          dedupe_key: dedupeKey(d.event_id, d.rule_id, d.channel_id),
          event_id: d.event_id,
          rule_id: d.rule_id,
          channel_id: d.channel_id,
          org_id: p.org_id,
          rule_name: d.rule_name,
          event,
        });
      }
      const at = new Date(p.created_at);
      await deliveriesStore.insert(trx, rows, at, new Date(at.getTime() + DELIVERY_WINDOW_MS));
    }
    return plans.length;
  });
}

/** Every plan waiting (of one organisation, or of all), bounded: the delivery log shows what was recorded. */
export async function expandAll(
  db: Db,
  now: number,
  framesOf: EventFramesOf,
  orgId: string | null = null,
  rounds = 64,
): Promise<void> {
  for (let i = 0; i < rounds; i++) if ((await expandOutbox(db, now, framesOf, orgId)) < PLANS_PER_ROUND) return;
}
