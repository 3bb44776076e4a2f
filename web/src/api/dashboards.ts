import { client, ok, type Reply, type Sent } from './client.js';

/** A dashboard and its widgets as GET /api/v1/analytics-dashboards/{id} answers them. */
export type Dashboard = Reply<'/api/v1/analytics-dashboards/{id}'>;
export type Widget = Dashboard['widgets'][number];
export type NewDashboard = Sent<'/api/v1/analytics-dashboards', 'post'>;
export type WidgetChange = Sent<'/api/v1/analytics-widgets/{id}', 'patch'>;
export type NewWidget = Sent<'/api/v1/analytics-dashboards/{id}/widgets', 'post'>;

export const dashboardKeys = {
  all: ['dashboards'] as const,
  /** every dashboard's own key starts so (a widget added from the reports page refreshes any) */
  anyOne: ['dashboard'] as const,
  one: (id: string) => ['dashboard', id] as const,
};

export const listDashboards = () => ok(client.GET('/api/v1/analytics-dashboards'));

export const dashboard = (id: string) =>
  ok(client.GET('/api/v1/analytics-dashboards/{id}', { params: { path: { id } } }));

export const createDashboard = (body: NewDashboard) => ok(client.POST('/api/v1/analytics-dashboards', { body }));

/** Name and description, on the revision the edit started from (409 stale_revision when another came first). */
export const renameDashboard = (id: string, body: Sent<'/api/v1/analytics-dashboards/{id}', 'patch'>) =>
  ok(client.PATCH('/api/v1/analytics-dashboards/{id}', { params: { path: { id } }, body }));

/** Deletes a dashboard and its widgets (administrators; the saved reports stay). */
export const deleteDashboard = (id: string) =>
  ok(client.DELETE('/api/v1/analytics-dashboards/{id}', { params: { path: { id } } }));

export const changeWidget = (id: string, body: WidgetChange) =>
  ok(client.PATCH('/api/v1/analytics-widgets/{id}', { params: { path: { id } }, body }));

export const removeWidget = (id: string) =>
  ok(client.DELETE('/api/v1/analytics-widgets/{id}', { params: { path: { id } } }));

export const addWidget = (dashboardId: string, body: NewWidget) =>
  ok(client.POST('/api/v1/analytics-dashboards/{id}/widgets', { params: { path: { id: dashboardId } }, body }));
