import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { EventOutbox } from '../events/log/outbox.port.js';
import type { EventFrame, NewFrame } from '../events/log/events.frames.js';
import type { Alongside } from '../events/log/intake.writer.js';
import { cooldownKey, plan, ruleMatches, NO_CAMERA, type EventFacts, type RuleSpec } from './match.js';
import { encodePlan, mergePlans, planCompact, type EncodedPlan } from './outbox.plan.js';
import { outboxStore } from './outbox.store.js';
import type { RulesCache } from './rules.cache.js';

/** How long a delivery is tried before it is dead (document 4 §13). */
export const DELIVERY_WINDOW_MS = 24 * 3600_000;

/** The tags of cameras, as the cameras domain keeps them (read in the event's transaction). */
export type CameraTags = (db: Db, cameraIds: string[]) => Promise<Map<string, string[]>>;

const NO_TAGS: readonly string[] = [];

// One object per event (run for every event of every write of an organisation with rules).
const factsOf = (f: NewFrame, tags: readonly string[]): EventFacts => ({
  id: f.id,
  occurred_at: Date.parse(f.occurred_at),
  camera_id: f.camera_id,
  tags,
  detector: f.detector,
  severity: f.severity,
  category: f.category,
  open: f.interval === true && f.ended_at === null,
});

/**
 * The outbox (document 4 §13): inside the transaction that writes new events, the deliveries of
 * the organisation's enabled rules, one per (event, rule, channel), recorded as one plan row for
 * the write (outbox.expand.ts turns it into delivery rows), with the cooldown state of the
 * (rule, camera) keys locked to commit. The rules come from the cache: an organisation
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
    const facts = await this.factsOf(trx, rules, frames);
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
    const names = new Map(rules.map((r) => [r.id, r.name]));
    await outboxStore.insertPlan(
      trx,
      orgId,
      new Date(this.clock.now()),
      encodePlan(deliveries.map((d) => ({ ...d, rule_name: names.get(d.rule_id) ?? '' }))),
    );
    return deliveries.length;
  }

  /**
   * Ahead of intake's one statement: when no rule of the organisation keeps a cooldown (whose
   * state is locked in the write's transaction), the deliveries are planned from the events as
   * sent and written by the statement itself for the events it inserts (no transaction of their
   * own, no round trip). 'transaction': plan them in the write's transaction (`record`).
   */
  async ahead(orgId: string, db: Db, frames: NewFrame[]): Promise<Alongside<EncodedPlan> | 'transaction' | null> {
    const rules = await this.cache.forOrg(orgId, db);
    if (!rules.length) return null;
    if (rules.some((r) => r.cooldown_secs > 0)) return 'transaction';
    const encoded = planCompact(rules, await this.factsOf(db, rules, frames));
    if (!encoded) return null;
    const at = new Date(this.clock.now());
    return {
      items: [encoded],
      statement: (plans) => outboxStore.planAlongside(orgId, at, mergePlans(plans)),
    };
  }

  committed(): void {
    this.wake();
  }

  /** What the rules match on; a camera's tags only when a rule filters by tag. */
  private async factsOf(db: Db, rules: RuleSpec[], frames: NewFrame[]): Promise<EventFacts[]> {
    const byTags = rules.some((r) => r.match.tag_ids.length > 0);
    const cameraIds = byTags ? [...new Set(frames.flatMap((f) => (f.camera_id ? [f.camera_id] : [])))] : [];
    const tags = cameraIds.length ? await this.cameraTags(db, cameraIds) : new Map<string, string[]>();
    return frames.map((f) => factsOf(f, f.camera_id ? (tags.get(f.camera_id) ?? NO_TAGS) : NO_TAGS));
  }
}
