import { client, ok, rawFetch, sessionToken, type Reply } from './client.js';
import type { paths } from './openapi.gen.js';
import { readSse } from '../lib/sse.js';

type Listed = Reply<'/api/v1/audit'>['rows'][number];
/** An audit record; a live frame has no `params` (read with the single record when opened). */
export type AuditRow = Omit<Listed, 'params'> & { params?: Listed['params'] };
/** The audit log's filters and search, as GET /audit and the CSV export take them. */
export type AuditFilters = Pick<
  NonNullable<paths['/api/v1/audit']['get']['parameters']['query']>,
  'action' | 'object_type' | 'q' | 'occurred_from' | 'occurred_to'
>;

export const auditKeys = {
  actions: ['audit-actions'] as const,
  first: (f: AuditFilters) => ['audit', f] as const,
};

export const auditActions = () => ok(client.GET('/api/v1/audit/actions'));

/** A page of 100 records, newest first; `before` (the last row shown) gives the next older page. */
export const auditPage = (f: AuditFilters, before?: { occurred_at: string; id: string }) =>
  ok(
    client.GET('/api/v1/audit', {
      params: {
        query: { ...f, limit: 100, ...(before ? { before_ts: before.occurred_at, before_id: before.id } : {}) },
      },
    }),
  );

/** One record with its params (its time finds its partition). */
export const auditRecord = (r: { id: string; occurred_at: string }) =>
  ok(client.GET('/api/v1/audit/{id}', { params: { path: { id: r.id }, query: { occurred_at: r.occurred_at } } }));

/** New records and updates from `cursor` (the list's stream_cursor), to `onRow`; resolves when the stream ends. */
export const followAudit = (cursor: string, onRow: (r: AuditRow) => void, signal: AbortSignal) =>
  readSse(
    `/api/v1/audit/stream?last_event_id=${encodeURIComponent(cursor)}`,
    sessionToken() ?? '',
    { frame: (data) => onRow(JSON.parse(data) as AuditRow) },
    signal,
  );

/** The filtered log as CSV (bytes, not JSON: outside the typed client). */
export async function auditCsv(f: AuditFilters): Promise<Blob> {
  const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v) as string[][]).toString();
  return (await rawFetch(`/api/v1/audit/export.csv${q ? `?${q}` : ''}`)).blob();
}
