import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { IdParams, sec } from '../http/list.js';
import type { ReportsService } from './reports.service.js';
import type { DashboardsService } from './dashboards.service.js';
import {
  ANALYTICS_LIMIT_ERRORS,
  ANALYTICS_QUERY_ERRORS,
  AnalyticsResult,
} from '../events/analytics/analytics.schemas.js';
import type { ErrorName } from '../errors.js';
import { clientGone } from '../events/analytics/analytics.routes.js';
import {
  DashboardBody,
  DashboardFull,
  DashboardList,
  DashboardOut,
  DashboardPatch,
  Deleted,
  OrgQuery,
  ReportBody,
  ReportListQuery,
  ReportOut,
  ReportPage,
  ReportPatch,
  RunQuery,
  WidgetBody,
  WidgetOut,
  WidgetPatch,
} from './dashboards.schemas.js';

const tags = ['dashboards'];
// A saved report's or dashboard's visibility and audience (boards.checks.ts).
const AUDIENCE = [
  'analytics_bad_visibility',
  'analytics_dashboard_audience_required',
  'analytics_dashboard_audience_limit',
  'analytics_dashboard_bad_audience',
] as const satisfies readonly ErrorName[];
// A saved report: its name, period, audience and analytics query definition; who may write it.
const REPORT = [
  'analytics_bad_name',
  'analytics_bad_period',
  ...AUDIENCE,
  ...ANALYTICS_QUERY_ERRORS,
  'bad_request',
  'forbidden',
  'crossOrg',
] as const satisfies readonly ErrorName[];
const DASHBOARD = [
  'analytics_bad_name',
  'analytics_bad_timezone',
  'analytics_bad_period',
  ...AUDIENCE,
  'bad_request',
  'forbidden',
  'crossOrg',
] as const satisfies readonly ErrorName[];
// A widget's fields, with the analytics query codes of an inline definition; rights through its dashboard.
const WIDGET = [
  'analytics_widget_source',
  'analytics_report_not_found',
  'analytics_report_visibility',
  'analytics_bad_name',
  'analytics_bad_visualization',
  'analytics_bad_options',
  'analytics_bad_layout',
  'analytics_bad_position',
  ...ANALYTICS_QUERY_ERRORS,
  'bad_request',
  'forbidden',
  'notFound',
] as const satisfies readonly ErrorName[];

/** Any signed-in user reads within visibility; administrators write (document 2, document 4 §3, §11). */
export function dashboardsRoutes(
  app: PlaneApp,
  deps: { reports: ReportsService; dashboards: DashboardsService },
): void {
  const { reports, dashboards } = deps;
  app.get(
    '/api/v1/analytics-reports',
    {
      schema: {
        tags,
        security: sec,
        querystring: ReportListQuery,
        response: { 200: ReportPage },
        summary: 'Saved reports you may read',
        errors: ['crossOrg'],
      },
    },
    async (req) => reports.list(principalOf(req), req.query),
  );
  app.post(
    '/api/v1/analytics-reports',
    {
      schema: {
        tags,
        security: sec,
        body: ReportBody,
        response: { 201: ReportOut },
        summary: 'Save a report (administrators)',
        description: 'definition: an analytics query body without org_id, from, to, plus period.',
        errors: [...REPORT, 'notFound', 'max_reports_reached', 'alreadyExists'],
      },
    },
    async (req, reply) => reply.code(201).send(await reports.create(principalOf(req), req.body)),
  );
  app.get(
    '/api/v1/analytics-reports/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: ReportOut },
        summary: 'One saved report (404 when invisible)',
        errors: ['notFound'],
      },
    },
    async (req) => reports.get(principalOf(req), req.params.id),
  );
  app.patch(
    '/api/v1/analytics-reports/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        body: ReportPatch,
        response: { 200: ReportOut },
        summary: 'Change a saved report (last read revision required)',
        description: 'analytics_report_visibility: a dashboard showing it would expose it.',
        errors: [...REPORT, 'analytics_report_visibility', 'notFound', 'stale_revision', 'alreadyExists'],
      },
    },
    async (req) => reports.update(principalOf(req), req.params.id, req.body),
  );
  app.delete(
    '/api/v1/analytics-reports/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
        summary: 'Delete a saved report',
        description: 'still_referenced: a widget shows it.',
        errors: ['forbidden', 'notFound', 'stillReferenced'],
      },
    },
    async (req) => reports.delete(principalOf(req), req.params.id),
  );
  app.get(
    '/api/v1/analytics-reports/:id/run',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        querystring: RunQuery,
        response: { 200: AnalyticsResult },
        summary: "Run a saved report over its period in a time zone (default the definition's)",
        description: 'analytics_busy carries scope and retry_after, analytics_deadline retry_after.',
        errors: [
          'analytics_bad_timezone',
          ...ANALYTICS_QUERY_ERRORS,
          'bad_request',
          'notFound',
          ...ANALYTICS_LIMIT_ERRORS,
        ],
      },
    },
    async (req, reply) => reports.run(principalOf(req), req.params.id, req.query, clientGone(reply)),
  );

  app.get(
    '/api/v1/analytics-dashboards',
    {
      schema: {
        tags,
        security: sec,
        querystring: OrgQuery,
        response: { 200: DashboardList },
        summary: 'Dashboards you may read',
        errors: ['crossOrg'],
      },
    },
    async (req) => dashboards.list(principalOf(req), req.query),
  );
  app.post(
    '/api/v1/analytics-dashboards',
    {
      schema: {
        tags,
        security: sec,
        body: DashboardBody,
        response: { 201: DashboardOut },
        summary: 'Create a dashboard (administrators)',
        errors: [...DASHBOARD, 'notFound', 'max_dashboards_reached', 'alreadyExists'],
      },
    },
    async (req, reply) => reply.code(201).send(await dashboards.create(principalOf(req), req.body)),
  );
  app.get(
    '/api/v1/analytics-dashboards/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: DashboardFull },
        summary: 'One dashboard with widgets and audience_users',
        errors: ['notFound'],
      },
    },
    async (req) => dashboards.get(principalOf(req), req.params.id),
  );
  app.patch(
    '/api/v1/analytics-dashboards/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        body: DashboardPatch,
        response: { 200: DashboardOut },
        summary: 'Change a dashboard (last read revision required)',
        errors: [...DASHBOARD, 'notFound', 'stale_revision', 'analytics_dashboard_visibility', 'alreadyExists'],
      },
    },
    async (req) => dashboards.update(principalOf(req), req.params.id, req.body),
  );
  app.delete(
    '/api/v1/analytics-dashboards/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
        summary: 'Delete a dashboard and its widgets',
        errors: ['forbidden', 'notFound'],
      },
    },
    async (req) => dashboards.delete(principalOf(req), req.params.id),
  );
  app.post(
    '/api/v1/analytics-dashboards/:id/widgets',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        body: WidgetBody,
        response: { 201: WidgetOut },
        summary: 'Add a widget',
        description: 'analytics_widget_limit: the dashboard has 32 widgets.',
        errors: [...WIDGET, 'analytics_widget_limit'],
      },
    },
    async (req, reply) => reply.code(201).send(await dashboards.addWidget(principalOf(req), req.params.id, req.body)),
  );
  app.patch(
    '/api/v1/analytics-widgets/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        body: WidgetPatch,
        response: { 200: WidgetOut },
        summary: 'Change a widget (last read revision required)',
        description: 'Rights through the owning dashboard.',
        errors: [...WIDGET, 'stale_revision'],
      },
    },
    async (req) => dashboards.updateWidget(principalOf(req), req.params.id, req.body),
  );
  app.delete(
    '/api/v1/analytics-widgets/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
        summary: 'Remove a widget',
        errors: ['forbidden', 'notFound'],
      },
    },
    async (req) => dashboards.deleteWidget(principalOf(req), req.params.id),
  );
}
