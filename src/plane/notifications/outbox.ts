import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { EventOutbox } from '../events/log/outbox.port.js';
import type { EventFrame } from '../events/log/events.frames.js';
import { cooldownKey, dedupeKey, plan, ruleMatches, NO_CAMERA, type EventFacts } from './match.js';
import { deliveriesStore, type NewDelivery } from './deliveries.store.js';
import { outboxStore } from './outbox.store.js';
import type { RulesCache } from './rules.cache.js';

/** How long a delivery is tried before it is dead (document 4 §13). */
export const DELIVERY_WINDOW_MS = 24 * 3600_000;

/** The tags of cameras, as the cameras domain keeps them (read in the event's transaction). */
export type CameraTags = (db: Db, cameraIds: string[]) => Promise<Map<string, string[]>>;

const factsOf = (f: EventFrame): Omit<EventFacts, 'tags'> => ({
  id: f.id,
  occurred_at: Date.parse(f.occurred_at),
  camera_id: f.camera_id,
  detector: f.detector,
  severity: f.severity,
  category: f.category,
  open: f.interval === true && f.ended_at === null,
});

/**
 * The outbox (document 4 §13): inside the transaction that writes new events, the deliveries of
 * the organisation's enabled rules, one per (event, rule, channel), with the cooldown state of
 * the (rule, camera) keys locked to commit. The rules come from the cache: an organisation
 * without rules costs a map lookup per write.
 */
export class Outbox implements EventOutbox {
  constructor(
    private readonly clock: Clock,
    private readonly cache: RulesCache,
    private readonly cameraTags: CameraTags,
    private readonly wake: () => void,
  ) {}

  async active(orgId: string, db?: Db): Promise<boolean> {
    return (await this.cache.forOrg(orgId, db)).length > 0;
  }

  async record(trx: Db, orgId: string, frames: EventFrame[]): Promise<number> {
    if (!frames.length) return 0;
    const rules = await this.cache.forOrg(orgId, trx);
    if (!rules.length) return 0;
    const byTags = rules.some((r) => r.match.tag_ids.length > 0);
    const cameraIds = byTags ? [...new Set(frames.flatMap((f) => (f.camera_id ? [f.camera_id] : [])))] : [];
    const tags = cameraIds.length ? await this.cameraTags(trx, cameraIds) : new Map<string, string[]>();
    const facts: EventFacts[] = frames.map((f) => ({
      ...factsOf(f),
      tags: f.camera_id ? (tags.get(f.camera_id) ?? []) : [],
    }));
    // The cooldown keys these events may touch: locked (and read) before the plan is made.
    const keys = new Map<string, { rule_id: string; camera_key: string }>();
    for (const r of rules) {
      if (r.cooldown_secs <= 0) continue;
      for (const e of facts)
        if (ruleMatches(r, e))
          keys.set(cooldownKey(r.id, e.camera_id), { rule_id: r.id, camera_key: e.camera_id ?? NO_CAMERA });
    }
    const before = keys.size ? await outboxStore.lockCooldowns(trx, [...keys.values()]) : new Map();
    const { deliveries, cooldowns } = plan(rules, facts, before);
    await outboxStore.writeCooldowns(trx, cooldowns);
    if (!deliveries.length) return 0;
    const frameOf = new Map(frames.map((f) => [f.id, f]));
    const ruleName = new Map(rules.map((r) => [r.id, r.name]));
    const at = this.clock.now();
    const rows: NewDelivery[] = deliveries.map((d) => ({
      id: uuidv7({ msecs: at }),
      dedupe_key: dedupeKey(d.event_id, d.rule_id, d.channel_id),
      event_id: d.event_id,
      rule_id: d.rule_id,
      channel_id: d.channel_id,
      org_id: orgId,
      rule_name: ruleName.get(d.rule_id) ?? null,
      event: JSON.stringify(frameOf.get(d.event_id)),
    }));
    return deliveriesStore.insert(trx, rows, new Date(at), new Date(at + DELIVERY_WINDOW_MS));
  }

  committed(): void {
    this.wake();
  }
}
