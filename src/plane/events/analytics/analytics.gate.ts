import { errors } from '../../errors.js';

/** How long one analytics statement may run before PostgreSQL cancels it (503 analytics_deadline). */
export const ANALYTICS_DEADLINE_MS = 10_000;
/** A batch's statements share this much time: 32 queries never hold a slot for 32 deadlines. */
export const ANALYTICS_BATCH_BUDGET_MS = 30_000;

/** The slots and deadlines analytics run under (issue 25, finding 1; docs/analytics.md). */
export interface AnalyticsLimits {
  /** queries at once in this process */
  processSlots: number;
  /** queries at once per organisation in this process */
  orgSlots: number;
  deadlineMs: number;
  batchBudgetMs: number;
}

/**
 * The limits for a pool of `poolMax` connections. A slot holds at most one connection at a time
 * (a query's statements run one after another), so analytics hold at most `processSlots`
 * connections: three tenths of the pool (3 of the standard 10), which with the feed's 4 search
 * slots leaves 3 that neither can take, for the feed, intake, logins and the jobs. One organisation
 * may take half of them (1 of 3): a heavy statement keeps a core busy, and two of one operator's
 * kept both cores of a small machine from everyone else (bench/plane/analytics-starvation.ts).
 */
export function analyticsLimits(poolMax: number, over: Partial<AnalyticsLimits> = {}): AnalyticsLimits {
  const processSlots = Math.max(1, Math.floor(poolMax * 0.3));
  return {
    processSlots,
    orgSlots: Math.max(1, Math.floor(processSlots / 2)),
    deadlineMs: ANALYTICS_DEADLINE_MS,
    batchBudgetMs: ANALYTICS_BATCH_BUDGET_MS,
    ...over,
  };
}

/**
 * Analytics slots of this process, overall and per organisation (the caller's): taken before a
 * query or a batch reads events, given back when it ends. None free: 429 analytics_busy at once,
 * never a wait, so a burst of heavy queries cannot queue up in front of other work for the pool.
 */
export class AnalyticsSlots {
  private busy = 0;
  private readonly byOrg = new Map<string, number>();

  constructor(private readonly limits: Pick<AnalyticsLimits, 'processSlots' | 'orgSlots'>) {}

  /** Takes a slot for `orgId` now or throws 429 analytics_busy; the returned function gives it back (once). */
  take(orgId: string): () => void {
    const mine = this.byOrg.get(orgId) ?? 0;
    // The organisation's own limit first: while it holds its share, waiting for others will not help it.
    if (mine >= this.limits.orgSlots) throw errors.analyticsBusy('org');
    if (this.busy >= this.limits.processSlots) throw errors.analyticsBusy('global');
    this.busy++;
    this.byOrg.set(orgId, mine + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.busy--;
      const left = (this.byOrg.get(orgId) ?? 1) - 1;
      if (left > 0) this.byOrg.set(orgId, left);
      else this.byOrg.delete(orgId);
    };
  }

  /** Slots in use, overall and for one organisation (tests, figures). */
  inUse(orgId?: string): number {
    return orgId === undefined ? this.busy : (this.byOrg.get(orgId) ?? 0);
  }
}
