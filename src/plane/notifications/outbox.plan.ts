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
 * Planned deliveries in their compact form: each (rule, channel) pair once, each event once with
 * the index of its set of pairs. A write of a hundred events matching three rules is three pairs,
 * one set and a hundred ids, not three hundred rows.
 */
export function encodePlan(items: readonly PlanItem[]): EncodedPlan {
  const pairIndex = new Map<string, number>();
  const pairs: EncodedPlan['pairs'] = [];
  const perEvent = new Map<string, number[]>();
  for (const d of items) {
    const key = `${d.rule_id}/${d.channel_id}`;
    let k = pairIndex.get(key);
    if (k === undefined) {
      pairIndex.set(key, (k = pairs.length));
      pairs.push([d.rule_id, d.channel_id, d.rule_name]);
    }
    const own = perEvent.get(d.event_id);
    if (own) {
      if (!own.includes(k)) own.push(k);
    } else perEvent.set(d.event_id, [k]);
  }
  const setIndex = new Map<string, number>();
  const sets: number[][] = [];
  const event_ids: string[] = [];
  const event_sets: number[] = [];
  for (const [e, ks] of perEvent) {
    const key = ks.join(',');
    let s = setIndex.get(key);
    if (s === undefined) {
      setIndex.set(key, (s = sets.length));
      sets.push(ks);
    }
    event_ids.push(e);
    event_sets.push(s);
  }
  return { pairs, sets, event_ids, event_sets };
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
  const pairs: EncodedPlan['pairs'] = [];
  const pairsOf = rules.map((r) =>
    r.channel_ids.map((c) => {
      pairs.push([r.id, c, r.name]);
      return pairs.length - 1;
    }),
  );
  const setIndex = new Map<string, number>();
  const sets: number[][] = [];
  const event_ids: string[] = [];
  const event_sets: number[] = [];
  for (const e of events) {
    let key = '';
    for (let i = 0; i < rules.length; i++) if (ruleMatches(rules[i]!, e)) key += `${i},`;
    if (!key) continue;
    let s = setIndex.get(key);
    if (s === undefined) {
      setIndex.set(key, (s = sets.length));
      sets.push(
        key
          .slice(0, -1)
          .split(',')
          .flatMap((i) => pairsOf[Number(i)]!),
      );
    }
    event_ids.push(e.id);
    event_sets.push(s);
  }
  return event_ids.length ? { pairs, sets, event_ids, event_sets } : null;
}

/** The plans of merged batches as one (pairs and sets shared, events in batch order). */
export function mergePlans(plans: readonly EncodedPlan[]): EncodedPlan {
  if (plans.length === 1) return plans[0]!;
  const pairIndex = new Map<string, number>();
  const setIndex = new Map<string, number>();
  const out: EncodedPlan = { pairs: [], sets: [], event_ids: [], event_sets: [] };
  for (const p of plans) {
    const pairMap = p.pairs.map(([r, c, name]) => {
      let i = pairIndex.get(`${r}/${c}`);
      if (i === undefined) {
        pairIndex.set(`${r}/${c}`, (i = out.pairs.length));
        out.pairs.push([r, c, name]);
      }
      return i;
    });
    const setMap = p.sets.map((s) => {
      const ks = s.map((k) => pairMap[k]!);
      let i = setIndex.get(ks.join());
      if (i === undefined) {
        setIndex.set(ks.join(), (i = out.sets.length));
        out.sets.push(ks);
      }
      return i;
    });
    p.event_ids.forEach((e, n) => {
      out.event_ids.push(e);
      out.event_sets.push(setMap[p.event_sets[n]!]!);
    });
  }
  return out;
}
