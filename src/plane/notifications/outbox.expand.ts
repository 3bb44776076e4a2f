import { v7 as uuidv7 } from 'uuid';
import type { Db } from '../db/database.js';
import { channelsStore } from './channels.store.js';
import { deliveriesStore, type NewDelivery } from './deliveries.store.js';
import { dedupeKey } from './match.js';
import { outboxStore } from './outbox.store.js';
import { DELIVERY_WINDOW_MS } from './outbox.js';
import { rulesStore } from './rules.store.js';

/** Plans one transaction takes: a claim's batch stays fed and the transaction stays short. */
export const PLANS_PER_ROUND = 8;

/**
 * Turns the outbox's recorded plans into delivery rows (document 4 §13), in one transaction that
 * takes the plans (FOR UPDATE SKIP LOCKED, so processes never take the same one) and writes their
 * deliveries: a crash before the commit leaves the plans to the next taker, and a dedupe_key
 * already written is left as it is. Each delivery is due from its event write, with its 24 h
 * window from then. A rule or channel deleted since the write sends nothing; those still there are
 * held to the commit, so a delete that comes meanwhile waits and then drops these rows with the
 * rest of its unsent ones. Returns how many plans it took (PLANS_PER_ROUND: more may wait).
 */
export async function expandOutbox(db: Db, now: number, orgId: string | null = null): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const plans = await outboxStore.takePlans(trx, orgId, PLANS_PER_ROUND);
    if (!plans.length) return 0;
    const rules = new Set(await rulesStore.holdExisting(trx, [...new Set(plans.flatMap((p) => p.rule_ids))]));
    const channels = new Set(await channelsStore.holdExisting(trx, [...new Set(plans.flatMap((p) => p.channel_ids))]));
    plans.sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime());
    for (const p of plans) {
      const rows: NewDelivery[] = [];
      const frames = new Map<string, string>();
      for (let n = 0; n < p.event_ids.length; n++) {
        const [e, r, c] = [p.event_ids[n]!, p.rule_ids[n]!, p.channel_ids[n]!];
        if (!rules.has(r) || !channels.has(c)) continue;
        let frame = frames.get(e);
        if (frame === undefined) frames.set(e, (frame = JSON.stringify(p.frames[e])));
        rows.push({
          id: uuidv7({ msecs: now }),
          dedupe_key: dedupeKey(e, r, c),
          event_id: e,
          rule_id: r,
          channel_id: c,
          org_id: p.org_id,
          rule_name: p.rule_names[r] ?? null,
          event: frame,
        });
      }
      const at = new Date(p.created_at);
      await deliveriesStore.insert(trx, rows, at, new Date(at.getTime() + DELIVERY_WINDOW_MS));
    }
    return plans.length;
  });
}

/** Every plan waiting (of one organisation, or of all), bounded: the delivery log shows what was recorded. */
export async function expandAll(db: Db, now: number, orgId: string | null = null, rounds = 64): Promise<void> {
  for (let i = 0; i < rounds; i++) if ((await expandOutbox(db, now, orgId)) < PLANS_PER_ROUND) return;
}
