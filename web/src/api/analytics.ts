import { client, ok, type Reply, type Sent } from './client.js';

/** An analytics answer (POST /api/v1/event-analytics/query): what every widget draws. */
export type Result = Reply<'/api/v1/event-analytics/query', 'post'>;
export type Point = Result['points'][number];
export type Query = Sent<'/api/v1/event-analytics/query', 'post'>;
export type CatalogField = Reply<'/api/v1/event-analytics/catalog'>['fields'][number];

export const analyticsKeys = {
  catalog: ['catalog'] as const,
  reports: ['reports'] as const,
  run: (parts: readonly unknown[]) => ['dashboard-run', ...parts] as const,
};

export const catalog = () => ok(client.GET('/api/v1/event-analytics/catalog'));

export const listReports = () => ok(client.GET('/api/v1/analytics-reports', { params: { query: { limit: 500 } } }));

export const report = (id: string) => ok(client.GET('/api/v1/analytics-reports/{id}', { params: { path: { id } } }));

export const saveReport = (body: Sent<'/api/v1/analytics-reports', 'post'>) =>
  ok(client.POST('/api/v1/analytics-reports', { body }));

export const query = (body: Query) => ok(client.POST('/api/v1/event-analytics/query', { body }));

/** Several queries at once; each answers its result or a bare code (403 and 5xx fail the batch). */
export const queryBatch = (body: Sent<'/api/v1/event-analytics/query-batch', 'post'>) =>
  ok(client.POST('/api/v1/event-analytics/query-batch', { body }));
