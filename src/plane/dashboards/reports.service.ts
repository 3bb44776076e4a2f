import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { isUuid } from '../http/list.js';
import { readScope, writeScope } from '../rights/org-scope.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import type { UsageService } from '../usage/usage.service.js';
import type { AnalyticsService } from '../events/analytics/analytics.service.js';
import type { AnalyticsQueryBody, AnalyticsResult } from '../events/analytics/analytics.schemas.js';
import { isTimeZone } from '../events/analytics/analytics.query.js';
import { canRead, exposesMore } from './boards.rules.js';
import { periodRange, type Period } from '../../common/calendar.js';
import type { BoardChecks } from './boards.checks.js';
import { dashboardsStore, type ReportRow } from './dashboards.store.js';

export const reportJson = (r: ReportRow) => ({
  id: r.id,
  org_id: r.org_id,
  name: r.name,
  definition: r.definition,
  visibility: r.visibility,
  audience_user_ids: r.audience_user_ids,
  created_by: r.created_by,
  revision: r.revision,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

const requireAdmin = (p: Principal) => {
  if (p.role === 'user') throw errors.forbidden();
};

/**
 * Saved reports (document 4 §3, §11): reads within visibility, writes by administrators, revision
 * locking like dashboards, `report.*` audit records, max_reports. `/run` runs the definition over
 * its period in a time zone.
 */
export class ReportsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly usage: UsageService,
    private readonly analytics: AnalyticsService,
    private readonly checks: BoardChecks,
  ) {}

  async list(p: Principal, q: { org?: string; after?: string; limit?: number }) {
    const orgId = readScope(p, q.org);
    const limit = q.limit ?? 500;
    const rows: ReportRow[] = [];
    let after = q.after ?? null;
    // Filtered by visibility after the read: a page keeps reading until it is full or the table ends.
    for (;;) {
      const page = await dashboardsStore.reports(this.db, { orgId, after, limit: limit + 1 });
      for (const r of page) if (canRead(p, r) && rows.length <= limit) rows.push(r);
      if (rows.length > limit || page.length <= limit) break;
      after = page[page.length - 1]!.id;
    }
    const more = rows.length > limit;
    const shown = rows.slice(0, limit);
    return { rows: shown.map(reportJson), next: more ? shown[shown.length - 1]!.id : null };
  }

  /** A report the caller may read; 404 otherwise (absent or invisible alike). */
  async readable(p: Principal, id: string, db: Db = this.db, lock = false): Promise<ReportRow> {
    const r = isUuid(id) ? await dashboardsStore.report(db, id.toLowerCase(), lock) : undefined;
    if (!r || !canRead(p, r)) throw errors.notFound();
    return r;
  }

  async get(p: Principal, id: string) {
    return reportJson(await this.readable(p, id));
  }

  async create(
    p: Principal,
    body: {
      name?: unknown;
      definition?: unknown;
      visibility?: unknown;
      audience_user_ids?: unknown;
      org_id?: string | null;
    },
  ) {
    requireAdmin(p);
    const orgId = writeScope(p, body.org_id);
    const name = this.checks.name(body.name);
    const definition = await this.checks.definition(p, orgId, body.definition);
    const audience = await this.checks.audience(orgId, body.visibility ?? 'org', body.audience_user_ids);
    const row = await this.db.transaction().execute(async (trx) => {
      await this.usage.admit(trx, orgId, 'reports');
      const r = await dashboardsStore.insertReport(trx, {
        id: uuidv7(),
        org_id: orgId,
        name,
        definition,
        ...audience,
        created_by: p.userId,
      });
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId,
        action: 'report.create',
        objectType: 'report',
        objectId: r.id,
        objectName: name,
        params: { name, visibility: r.visibility },
      });
      return r;
    });
    return reportJson(row);
  }

  async update(
    p: Principal,
    id: string,
    body: { revision: number; name?: unknown; definition?: unknown; visibility?: unknown; audience_user_ids?: unknown },
  ) {
    requireAdmin(p);
    const row = await this.db.transaction().execute(async (trx) => {
      const before = await this.readable(p, id, trx, true);
      if (before.revision !== body.revision) throw errors.conflict('stale_revision');
      const set: Partial<ReportRow> = {};
      if (body.name !== undefined) set.name = this.checks.name(body.name);
      if (body.definition !== undefined)
        set.definition = await this.checks.definition(p, before.org_id, body.definition);
      if (body.visibility !== undefined || body.audience_user_ids !== undefined) {
        Object.assign(
          set,
          await this.checks.audience(
            before.org_id,
            body.visibility ?? before.visibility,
            body.audience_user_ids ?? before.audience_user_ids,
          ),
        );
        const after = { ...before, ...set };
        // Narrowing a report under a dashboard that shows it would expose it there (document 2).
        for (const d of await dashboardsStore.dashboardsShowing(trx, before.id))
          if (exposesMore(d, after)) throw errors.badRequest('analytics_report_visibility');
      }
      const r = await dashboardsStore.updateReport(trx, before.id, set, new Date(this.clock.now()));
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: r.org_id,
        action: 'report.update',
        objectType: 'report',
        objectId: r.id,
        objectName: r.name,
        params: { changed: Object.keys(set).sort(), revision: r.revision },
      });
      return r;
    });
    return reportJson(row);
  }

  async delete(p: Principal, id: string) {
    requireAdmin(p);
    return this.db.transaction().execute(async (trx) => {
      const r = await this.readable(p, id, trx, true);
      if ((await dashboardsStore.dashboardsShowing(trx, r.id)).length) throw errors.stillReferenced();
      await dashboardsStore.deleteReport(trx, r.id);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: r.org_id,
        action: 'report.delete',
        objectType: 'report',
        objectId: r.id,
        objectName: r.name,
        params: {},
      });
      return { id: r.id, deleted: true as const };
    });
  }

  /** Runs a report over its period in `timezone` (default: the definition's, else UTC). */
  async run(p: Principal, id: string, q: { timezone?: string }, signal?: AbortSignal): Promise<AnalyticsResult> {
    const r = await this.readable(p, id);
    return this.runDefinition(p, r.org_id, r.definition, q.timezone, signal);
  }

  /** A definition (a report's or an inline widget's) over its period now. */
  async runDefinition(
    p: Principal,
    orgId: string,
    definition: Record<string, unknown>,
    timezone?: string,
    signal?: AbortSignal,
  ): Promise<AnalyticsResult> {
    const { period, ...query } = definition;
    const tz = timezone ?? (typeof query.timezone === 'string' ? query.timezone : 'UTC');
    if (!isTimeZone(tz)) throw errors.badRequest('analytics_bad_timezone');
    const { from, to } = periodRange(period as Period, tz, this.clock.now());
    return this.analytics.query(
      p,
      { ...query, timezone: tz, org_id: orgId, from: from.toISOString(), to: to.toISOString() } as AnalyticsQueryBody,
      signal,
    );
  }
}
