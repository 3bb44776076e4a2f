import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface ReportRow {
  id: string;
  org_id: string;
  name: string;
  definition: Record<string, unknown>;
  visibility: string;
  audience_user_ids: string[];
  created_by: string | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
}
export interface DashboardRow {
  id: string;
  org_id: string;
  name: string;
  description: string;
  timezone: string;
  default_period: string;
  live_enabled: boolean;
  visibility: string;
  audience_user_ids: string[];
  created_by: string | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
}
export interface WidgetRow {
  id: string;
  dashboard_id: string;
  report_id: string | null;
  inline_definition: Record<string, unknown> | null;
  title: string;
  visualization: string;
  options: Record<string, unknown>;
  layout: Record<string, unknown>;
  position: number;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

type ReportFields = Omit<ReportRow, 'revision' | 'created_at' | 'updated_at'>;
type DashboardFields = Omit<DashboardRow, 'revision' | 'created_at' | 'updated_at'>;
type WidgetFields = Omit<WidgetRow, 'revision' | 'created_at' | 'updated_at'>;

/** The only SQL of saved reports, dashboards and widgets. A change bumps `revision` (optimistic locking). */
export const dashboardsStore = {
  async insertReport(db: Db, r: ReportFields): Promise<ReportRow> {
    return (await db
      .insertInto('analytics_reports')
      .values({ ...r, definition: JSON.stringify(r.definition) })
      .returningAll()
      .executeTakeFirstOrThrow()) as ReportRow;
  },
  /**
   * `lock`: true takes the row FOR UPDATE (a change of the report), 'share' FOR SHARE (a dashboard
   * or widget write that relies on the report's visibility: it waits for a change in flight, and
   * the change waits for it, so the two checks of the exposure rule see each other).
   */
  async report(db: Db, id: string, lock: boolean | 'share' = false): Promise<ReportRow | undefined> {
    let q = db.selectFrom('analytics_reports').selectAll().where('id', '=', id);
    if (lock === 'share') q = q.forShare();
    else if (lock) q = q.forUpdate();
    return (await q.executeTakeFirst()) as ReportRow | undefined;
  },
  /** Reports of one organisation (null: every one), in id order after `after`. */
  async reports(db: Db, q: { orgId: string | null; after: string | null; limit: number }): Promise<ReportRow[]> {
    let s = db.selectFrom('analytics_reports').selectAll().orderBy('id').limit(q.limit);
    if (q.orgId) s = s.where('org_id', '=', q.orgId);
    if (q.after) s = s.where('id', '>', q.after);
    return (await s.execute()) as ReportRow[];
  },
  async updateReport(db: Db, id: string, set: Partial<ReportFields>, at: Date): Promise<ReportRow> {
    const values = {
      ...set,
      ...(set.definition ? { definition: JSON.stringify(set.definition) } : {}),
      updated_at: at,
      revision: sql<number>`revision + 1`,
    };
    return (await db
      .updateTable('analytics_reports')
      .set(values)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()) as ReportRow;
  },
  async deleteReport(db: Db, id: string): Promise<void> {
    await db.deleteFrom('analytics_reports').where('id', '=', id).execute();
  },
  /** The dashboards whose widgets show a report. */
  async dashboardsShowing(db: Db, reportId: string): Promise<DashboardRow[]> {
    return (await db
      .selectFrom('analytics_dashboards as d')
      .selectAll('d')
      .where('d.id', 'in', db.selectFrom('analytics_widgets').select('dashboard_id').where('report_id', '=', reportId))
      .execute()) as DashboardRow[];
  },

  async insertDashboard(db: Db, d: DashboardFields): Promise<DashboardRow> {
    return (await db
      .insertInto('analytics_dashboards')
      .values(d)
      .returningAll()
      .executeTakeFirstOrThrow()) as DashboardRow;
  },
  async dashboard(db: Db, id: string, lock = false): Promise<DashboardRow | undefined> {
    let q = db.selectFrom('analytics_dashboards').selectAll().where('id', '=', id);
    if (lock) q = q.forUpdate();
    return (await q.executeTakeFirst()) as DashboardRow | undefined;
  },
  async dashboards(db: Db, orgId: string | null): Promise<DashboardRow[]> {
    let s = db.selectFrom('analytics_dashboards').selectAll().orderBy('name').orderBy('id');
    if (orgId) s = s.where('org_id', '=', orgId);
    return (await s.execute()) as DashboardRow[];
  },
  async updateDashboard(db: Db, id: string, set: Partial<DashboardFields>, at: Date): Promise<DashboardRow> {
    return (await db
      .updateTable('analytics_dashboards')
      .set({ ...set, updated_at: at, revision: sql<number>`revision + 1` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()) as DashboardRow;
  },
  async deleteDashboard(db: Db, id: string): Promise<void> {
    await db.deleteFrom('analytics_dashboards').where('id', '=', id).execute();
  },

  async widgets(db: Db, dashboardId: string): Promise<WidgetRow[]> {
    return (await db
      .selectFrom('analytics_widgets')
      .selectAll()
      .where('dashboard_id', '=', dashboardId)
      .orderBy('position')
      .orderBy('id')
      .execute()) as WidgetRow[];
  },
  async widget(db: Db, id: string, lock = false): Promise<WidgetRow | undefined> {
    let q = db.selectFrom('analytics_widgets').selectAll().where('id', '=', id);
    if (lock) q = q.forUpdate();
    return (await q.executeTakeFirst()) as WidgetRow | undefined;
  },
  async insertWidget(db: Db, w: WidgetFields): Promise<WidgetRow> {
    const values = {
      ...w,
      inline_definition: w.inline_definition === null ? null : JSON.stringify(w.inline_definition),
      options: JSON.stringify(w.options),
      layout: JSON.stringify(w.layout),
    };
    return (await db
      .insertInto('analytics_widgets')
      .values(values)
      .returningAll()
      .executeTakeFirstOrThrow()) as WidgetRow;
  },
  async updateWidget(db: Db, id: string, set: Partial<WidgetFields>, at: Date): Promise<WidgetRow> {
    const json = (v: unknown) => (v === undefined ? undefined : v === null ? null : JSON.stringify(v));
    const values = {
      ...set,
      inline_definition: json(set.inline_definition),
      options: json(set.options),
      layout: json(set.layout),
      updated_at: at,
      revision: sql<number>`revision + 1`,
    };
    for (const k of ['inline_definition', 'options', 'layout'] as const) if (values[k] === undefined) delete values[k];
    return (await db
      .updateTable('analytics_widgets')
      .set(values)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()) as WidgetRow;
  },
  async deleteWidget(db: Db, id: string): Promise<void> {
    await db.deleteFrom('analytics_widgets').where('id', '=', id).execute();
  },

  /** Definitions (reports' and inline widgets') that name a template: what `analytics_template_in_use` reads. */
  async definitionsNaming(db: Db, templateId: string): Promise<unknown[]> {
    const needle = `%${templateId}%`;
    const r = await sql<{
      d: unknown;
    }>`select definition as d from analytics_reports where definition::text like ${needle}
      union all select inline_definition as d from analytics_widgets where inline_definition::text like ${needle}`.execute(
      db,
    );
    return r.rows.map((x) => x.d);
  },
};
