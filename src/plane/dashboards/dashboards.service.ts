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
import type { UsersService } from '../users/users.service.js';
import { isTimeZone } from '../events/analytics/analytics.query.js';
import { canRead, exposesMore, VISUALIZATIONS, WIDGETS_MAX, type Audience } from './boards.rules.js';
import type { BoardChecks } from './boards.checks.js';
import { dashboardsStore, type DashboardRow, type WidgetRow } from './dashboards.store.js';

const DESCRIPTION_MAX = 1024;
const TITLE_MAX = 128;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const requireAdmin = (p: Principal) => {
  if (p.role === 'user') throw errors.forbidden();
};

const dashboardJson = (d: DashboardRow) => ({
  id: d.id,
  org_id: d.org_id,
  name: d.name,
  description: d.description,
  timezone: d.timezone,
  default_period: d.default_period,
  live_enabled: d.live_enabled,
  visibility: d.visibility,
  audience_user_ids: d.audience_user_ids,
  created_by: d.created_by,
  revision: d.revision,
  created_at: d.created_at.toISOString(),
  updated_at: d.updated_at.toISOString(),
});
const widgetJson = (w: WidgetRow) => ({
  id: w.id,
  dashboard_id: w.dashboard_id,
  report_id: w.report_id,
  inline_definition: w.inline_definition,
  title: w.title,
  visualization: w.visualization,
  options: w.options,
  layout: w.layout,
  position: w.position,
  revision: w.revision,
  created_at: w.created_at.toISOString(),
  updated_at: w.updated_at.toISOString(),
});

type DashboardInput = {
  name?: unknown;
  description?: unknown;
  timezone?: unknown;
  default_period?: unknown;
  live_enabled?: unknown;
  visibility?: unknown;
  audience_user_ids?: unknown;
};
type WidgetInput = {
  report_id?: unknown;
  inline_definition?: unknown;
  title?: unknown;
  visualization?: unknown;
  options?: unknown;
  layout?: unknown;
  position?: unknown;
};

/**
 * Dashboards and their widgets (document 2 "Dashboards and widgets"): reads within visibility,
 * writes by administrators, `revision` locking, the visibility rule between a dashboard and the
 * reports its widgets show, 32 widgets, 64 audience users, `dashboard.*` / `widget.*` audit.
 */
export class DashboardsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly usage: UsageService,
    private readonly users: UsersService,
    private readonly checks: BoardChecks,
  ) {}

  async list(p: Principal, q: { org?: string }) {
    const orgId = readScope(p, q.org);
    return { rows: (await dashboardsStore.dashboards(this.db, orgId)).filter((d) => canRead(p, d)).map(dashboardJson) };
  }

  private async readable(p: Principal, id: string, db: Db = this.db, lock = false): Promise<DashboardRow> {
    const d = isUuid(id) ? await dashboardsStore.dashboard(db, id.toLowerCase(), lock) : undefined;
    if (!d || !canRead(p, d)) throw errors.notFound();
    return d;
  }

  async get(p: Principal, id: string) {
    const d = await this.readable(p, id);
    return {
      ...dashboardJson(d),
      widgets: (await dashboardsStore.widgets(this.db, d.id)).map(widgetJson),
      audience_users: await this.users.audience(this.db, d.org_id, d.audience_user_ids),
    };
  }

  /** The fields of a create, or of a PATCH (`before`: what it changes). */
  private async fields(orgId: string, b: DashboardInput, before?: DashboardRow): Promise<Partial<DashboardRow>> {
    const set: Partial<DashboardRow> = {};
    if (!before || b.name !== undefined) set.name = this.checks.name(b.name);
    if (b.description !== undefined) {
      if (typeof b.description !== 'string' || b.description.length > DESCRIPTION_MAX)
        throw errors.badRequest('bad_request');
      set.description = b.description;
    }
    if (b.timezone !== undefined) {
      if (typeof b.timezone !== 'string' || !isTimeZone(b.timezone)) throw errors.badRequest('analytics_bad_timezone');
      set.timezone = b.timezone;
    }
    if (b.default_period !== undefined) set.default_period = this.checks.period(b.default_period);
    if (b.live_enabled !== undefined) {
      if (typeof b.live_enabled !== 'boolean') throw errors.badRequest('bad_request');
      set.live_enabled = b.live_enabled;
    }
    if (!before || b.visibility !== undefined || b.audience_user_ids !== undefined) {
      Object.assign(
        set,
        await this.checks.audience(
          orgId,
          b.visibility ?? before?.visibility ?? 'org',
          b.audience_user_ids ?? before?.audience_user_ids,
        ),
      );
    }
    return set;
  }

  async create(p: Principal, body: DashboardInput & { org_id?: string | null }) {
    requireAdmin(p);
    const orgId = writeScope(p, body.org_id);
    const set = await this.fields(orgId, body);
    const d = await this.db.transaction().execute(async (trx) => {
      await this.usage.admit(trx, orgId, 'dashboards');
      const row = await dashboardsStore.insertDashboard(trx, {
        id: uuidv7(),
        org_id: orgId,
        name: set.name!,
        description: set.description ?? '',
        timezone: set.timezone ?? 'UTC',
        default_period: set.default_period ?? 'today',
        live_enabled: set.live_enabled ?? true,
        visibility: set.visibility!,
        audience_user_ids: set.audience_user_ids!,
        created_by: p.userId,
      });
      await this.record(trx, p, 'dashboard.create', row.org_id, row.id, row.name, {
        name: row.name,
        visibility: row.visibility,
      });
      return row;
    });
    return dashboardJson(d);
  }

  async update(p: Principal, id: string, body: DashboardInput & { revision: number }) {
    requireAdmin(p);
    const d = await this.db.transaction().execute(async (trx) => {
      const before = await this.readable(p, id, trx, true);
      if (before.revision !== body.revision) throw errors.conflict('stale_revision');
      const set = await this.fields(before.org_id, body, before);
      const after = { ...before, ...set };
      // Each shown report is read FOR SHARE, in id order (no deadlock between two such updates):
      // a report narrowed meanwhile is either seen here or sees this dashboard's new visibility.
      const shown = [
        ...new Set((await dashboardsStore.widgets(trx, before.id)).flatMap((w) => (w.report_id ? [w.report_id] : []))),
      ].sort();
      for (const reportId of shown) {
        const report = await this.reportOf(trx, reportId);
        if (report && exposesMore(after, report)) throw errors.conflict('analytics_dashboard_visibility');
      }
      const row = await dashboardsStore.updateDashboard(trx, before.id, set, new Date(this.clock.now()));
      await this.record(trx, p, 'dashboard.update', row.org_id, row.id, row.name, {
        changed: Object.keys(set).sort(),
        revision: row.revision,
      });
      return row;
    });
    return dashboardJson(d);
  }

  async delete(p: Principal, id: string) {
    requireAdmin(p);
    return this.db.transaction().execute(async (trx) => {
      const d = await this.readable(p, id, trx, true);
      await dashboardsStore.deleteDashboard(trx, d.id);
      await this.record(trx, p, 'dashboard.delete', d.org_id, d.id, d.name, {});
      return { id: d.id, deleted: true as const };
    });
  }

  async addWidget(p: Principal, dashboardId: string, body: WidgetInput) {
    requireAdmin(p);
    const w = await this.db.transaction().execute(async (trx) => {
      const d = await this.readable(p, dashboardId, trx, true);
      const set = await this.widgetFields(trx, p, d, body);
      if ((await dashboardsStore.widgets(trx, d.id)).length >= WIDGETS_MAX)
        throw errors.conflict('analytics_widget_limit');
      const row = await dashboardsStore.insertWidget(trx, {
        id: uuidv7(),
        dashboard_id: d.id,
        report_id: set.report_id ?? null,
        inline_definition: set.inline_definition ?? null,
        title: set.title!,
        visualization: set.visualization!,
        options: set.options ?? {},
        layout: set.layout ?? {},
        position: set.position ?? 0,
      });
      await this.record(trx, p, 'widget.create', d.org_id, row.id, row.title, {
        dashboard_id: d.id,
        visualization: row.visualization,
      });
      return row;
    });
    return widgetJson(w);
  }

  async updateWidget(p: Principal, id: string, body: WidgetInput & { revision: number }) {
    requireAdmin(p);
    const w = await this.db.transaction().execute(async (trx) => {
      const { widget, dashboard } = await this.widgetOf(p, trx, id);
      if (widget.revision !== body.revision) throw errors.conflict('stale_revision');
      const set = await this.widgetFields(trx, p, dashboard, body, widget);
      const row = await dashboardsStore.updateWidget(trx, widget.id, set, new Date(this.clock.now()));
      await this.record(trx, p, 'widget.update', dashboard.org_id, row.id, row.title, {
        dashboard_id: dashboard.id,
        changed: Object.keys(set).sort(),
        revision: row.revision,
      });
      return row;
    });
    return widgetJson(w);
  }

  async deleteWidget(p: Principal, id: string) {
    requireAdmin(p);
    return this.db.transaction().execute(async (trx) => {
      const { widget, dashboard } = await this.widgetOf(p, trx, id);
      await dashboardsStore.deleteWidget(trx, widget.id);
      await this.record(trx, p, 'widget.delete', dashboard.org_id, widget.id, widget.title, {
        dashboard_id: dashboard.id,
      });
      return { id: widget.id, deleted: true as const };
    });
  }

  /** A widget and its dashboard: the rights are the dashboard's (404 when either is not readable). */
  private async widgetOf(p: Principal, trx: Db, id: string): Promise<{ widget: WidgetRow; dashboard: DashboardRow }> {
    const widget = isUuid(id) ? await dashboardsStore.widget(trx, id.toLowerCase(), true) : undefined;
    if (!widget) throw errors.notFound();
    return { widget, dashboard: await this.readable(p, widget.dashboard_id, trx, true) };
  }

  /**
   * A report as a dashboard or widget write relies on it: FOR SHARE, so that a concurrent change
   * of its visibility (ReportsService.update, FOR UPDATE) waits for this write and then sees its
   * widget, or this write waits for the change and sees the new visibility (issue 25, item 8:
   * unlocked, both passed their checks and an org dashboard showed an admins report). Locks are
   * taken dashboard first, then report, everywhere.
   */
  private async reportOf(db: Db, id: string): Promise<(Audience & { id: string }) | undefined> {
    return dashboardsStore.report(db, id, 'share');
  }

  private async widgetFields(
    trx: Db,
    p: Principal,
    d: DashboardRow,
    b: WidgetInput,
    before?: WidgetRow,
  ): Promise<Partial<WidgetRow>> {
    const set: Partial<WidgetRow> = {};
    if (!before || b.report_id !== undefined || b.inline_definition !== undefined) {
      const reportId =
        b.report_id !== undefined
          ? b.report_id
          : b.inline_definition !== undefined
            ? null
            : (before?.report_id ?? null);
      const inline =
        b.inline_definition !== undefined
          ? b.inline_definition
          : b.report_id !== undefined
            ? null
            : (before?.inline_definition ?? null);
      if ((reportId === null || reportId === undefined) === (inline === null || inline === undefined))
        throw errors.badRequest('analytics_widget_source');
      if (reportId !== null && reportId !== undefined) {
        const report =
          typeof reportId === 'string' && isUuid(reportId)
            ? await this.reportOf(trx, reportId.toLowerCase())
            : undefined;
        if (!report || report.org_id !== d.org_id) throw errors.badRequest('analytics_report_not_found');
        if (exposesMore(d, report)) throw errors.badRequest('analytics_report_visibility');
        set.report_id = report.id;
        set.inline_definition = null;
      } else {
        set.inline_definition = await this.checks.definition(p, d.org_id, inline);
        set.report_id = null;
      }
    }
    if (!before || b.title !== undefined) {
      if (typeof b.title !== 'string' || b.title.trim().length < 1 || b.title.length > TITLE_MAX)
        throw errors.badRequest('analytics_bad_name');
      set.title = b.title;
    }
    if (!before || b.visualization !== undefined) {
      if (typeof b.visualization !== 'string' || !(VISUALIZATIONS as readonly string[]).includes(b.visualization))
        throw errors.badRequest('analytics_bad_visualization');
      set.visualization = b.visualization;
    }
    if (b.options !== undefined) {
      if (!isObj(b.options)) throw errors.badRequest('analytics_bad_options');
      set.options = b.options;
    }
    if (b.layout !== undefined) {
      if (!isObj(b.layout)) throw errors.badRequest('analytics_bad_layout');
      set.layout = b.layout;
    }
    if (b.position !== undefined) {
      if (!Number.isInteger(b.position) || (b.position as number) < 0 || (b.position as number) > 10_000)
        throw errors.badRequest('analytics_bad_position');
      set.position = b.position as number;
    }
    return set;
  }

  private record(
    trx: Db,
    p: Principal,
    action: string,
    orgId: string,
    objectId: string,
    objectName: string,
    params: Record<string, unknown>,
  ) {
    const objectType = action.split('.')[0]!;
    return this.audit.record(trx, { actor: actorOf(p), orgId, action, objectType, objectId, objectName, params });
  }
}
