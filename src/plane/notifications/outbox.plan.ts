import { ruleMatches, type EventFacts, type PlannedDelivery, type RuleSpec } from './match.js';

/** A planned delivery with the rule's name as the message will say it. */
export interface PlanItem extends PlannedDelivery {
  rule_name: string;
}

/** The compact form of a write's planned deliveries (one notification_outbox row). */
export interface EncodedPlan {
  /** [rule id, channel id, rule name] */
  pairs: Array<[string, string, string]>;
  /** distinct sets of pair indexes */
  sets: number[][];
  event_ids: string[];
  /** event_sets[n]: the index in `sets` of event_ids[n]'s pairs */
  event_sets: number[];
}

/**
 * A plan being built: each (rule, channel) pair and each set of pairs once, by value, and the
 * events in the order given. The one place that indexes them (encodePlan, planCompact, mergePlans).
 */
class PlanIndex {
  readonly plan: EncodedPlan = { pairs: [], sets: [], event_ids: [], event_sets: [] };
  private readonly pairs = new Map<string, number>();
  private readonly sets = new Map<string, number>();

  /** The index of a pair (the rule's name as first given). */
  pair(ruleId: string, channelId: string, ruleName: string): number {
    const key = `${ruleId}/${channelId}`;
    let k = this.pairs.get(key);
    if (k === undefined) {
      this.pairs.set(key, (k = this.plan.pairs.length));
      this.plan.pairs.push([ruleId, channelId, ruleName]);
    }
    return k;
  }

  /** The index of a set of pair indexes. */
  set(ks: number[]): number {
    const key = ks.join(',');
    let s = this.sets.get(key);
    if (s === undefined) {
      this.sets.set(key, (s = this.plan.sets.length));
      this.plan.sets.push(ks);
    }
    return s;
  }

  event(id: string, set: number): void {
    this.plan.event_ids.push(id);
    this.plan.event_sets.push(set);
  }
}

/**
 * Planned deliveries in their compact form: each (rule, channel) pair once, each event once with
 * the index of its set of pairs. A write of a hundred events matching three rules is three pairs,
 * one set and a hundred ids, not three hundred rows.
 */
export function encodePlan(items: readonly PlanItem[]): EncodedPlan {
  const idx = new PlanIndex();
  const perEvent = new Map<string, number[]>();
  for (const d of items) {
    const k = idx.pair(d.rule_id, d.channel_id, d.rule_name);
    const own = perEvent.get(d.event_id);
    if (own) {
      if (!own.includes(k)) own.push(k);
    } else perEvent.set(d.event_id, [k]);
  }
  for (const [e, ks] of perEvent) idx.event(e, idx.set(ks));
  return idx.plan;
}

/** The planned deliveries of a stored plan, event by event in its order. */
export function decodePlan(p: EncodedPlan): PlanItem[] {
  const out: PlanItem[] = [];
  p.event_ids.forEach((e, n) => {
    for (const k of p.sets[p.event_sets[n]!] ?? []) {
      const pair = p.pairs[k];
      if (pair) out.push({ event_id: e, rule_id: pair[0], channel_id: pair[1], rule_name: pair[2] });
    }
  });
  return out;
}

/**
 * The plan of rules without cooldowns, made straight in its compact form (intake's one-statement
 * path, per write): the pairs are every (rule, channel) of the rules, and an event's set is the
 * pairs of the rules it matches. Decodes to what `plan` gives for the same rules and events.
 * Null when no event matches.
 */
export function planCompact(
  rules: readonly (RuleSpec & { name: string })[],
  events: readonly EventFacts[],
): EncodedPlan | null {
  const idx = new PlanIndex();
  const pairsOf = rules.map((r) => r.channel_ids.map((c) => idx.pair(r.id, c, r.name)));
  // The set of each combination of matched rules, made once (most writes have one or two).
  const setOf = new Map<string, number>();
  for (const e of events) {
    let key = '';
    for (let i = 0; i < rules.length; i++) if (ruleMatches(rules[i]!, e)) key += `${i},`;
    if (!key) continue;
    let s = setOf.get(key);
    if (s === undefined) {
      const ks = key
        .slice(0, -1)
        .split(',')
        .flatMap((i) => pairsOf[Number(i)]!);
      setOf.set(key, (s = idx.set(ks)));
    }
    idx.event(e.id, s);
  }
  return idx.plan.event_ids.length ? idx.plan : null;
}

/** The plans of merged batches as one (pairs and sets shared, events in batch order). */
export function mergePlans(plans: readonly EncodedPlan[]): EncodedPlan {
  if (plans.length === 1) return plans[0]!;
  const idx = new PlanIndex();
  for (const p of plans) {
    const pairMap = p.pairs.map(([r, c, name]) => idx.pair(r, c, name));
    const setMap = p.sets.map((s) => idx.set(s.map((k) => pairMap[k]!)));
    p.event_ids.forEach((e, n) => idx.event(e, setMap[p.event_sets[n]!]!));
  }
  return idx.plan;
}
