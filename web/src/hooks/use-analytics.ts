import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { analyticsKeys, catalog, listReports, query, queryBatch, report, saveReport } from '../api/analytics.js';
import type { Result } from '../api/analytics.js';
import type { Dashboard } from '../api/dashboards.js';
import { codeSentence, retryAfter } from '../api/error-words.js';
import { periodRange, type Period } from '../lib/period.js';
import { fieldsOf } from '../lib/text.js';

export const useCatalog = () => useQuery({ queryKey: analyticsKeys.catalog, queryFn: catalog });

export const useReports = () => useQuery({ queryKey: analyticsKeys.reports, queryFn: listReports });

export function useSaveReport() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: saveReport,
    onSuccess: () => qc.invalidateQueries({ queryKey: analyticsKeys.reports }),
  });
}

/** A definition (a saved report's or a form's, with its `period`) run over its period in UTC. */
export const useRunQuery = () =>
  useMutation({
    mutationFn: ({ definition, period }: { definition: Record<string, unknown>; period: Period }) => {
      const { period: _p, ...rest } = definition;
      const { from, to } = periodRange(period, 'UTC', Date.now());
      return query({ ...rest, from: from.toISOString(), to: to.toISOString(), timezone: 'UTC' } as Parameters<
        typeof query
      >[0]);
    },
  });

/** The definitions of the widgets (a saved report's or the widget's own), as queries over the chosen period. */
async function runWidgets(d: Dashboard, period: Period, tz: string): Promise<Map<string, Result | string>> {
  const reports = new Map<string, Record<string, unknown>>();
  await Promise.all(
    [...new Set(d.widgets.map((w) => w.report_id).filter((x): x is string => !!x))].map(async (id) => {
      reports.set(id, fieldsOf((await report(id)).definition));
    }),
  );
  const { from, to } = periodRange(period, tz, Date.now());
  const queries = d.widgets.map((w) => {
    const { period: _p, ...def } = w.report_id ? (reports.get(w.report_id) ?? {}) : fieldsOf(w.inline_definition);
    return { key: w.id, query: { ...def, from: from.toISOString(), to: to.toISOString(), timezone: tz } };
  });
  const out = new Map<string, Result | string>();
  if (!queries.length) return out;
  const r = await queryBatch({ queries } as Parameters<typeof queryBatch>[0]);
  // A widget's own refusal comes as a bare code (a 4xx: 403 and 5xx fail the whole batch).
  for (const x of r.results)
    out.set(x.key, (x.result as Result | undefined) ?? codeSentence(x.error ?? 'bad_request', 400));
  return out;
}

/**
 * A dashboard's widgets run over `period` in `tz`, again whenever `tick` moves (live). Busy (429
 * analytics_busy) or past its deadline (503): the plane says when to ask again, so ask then, a few times.
 */
export const useDashboardRun = (d: Dashboard | undefined, period: Period, tz: string, tick: number) =>
  useQuery({
    queryKey: analyticsKeys.run([
      d?.id,
      d?.revision,
      d?.widgets.map((w) => `${w.id}:${w.revision}`).join(),
      period,
      tz,
      tick,
    ]),
    enabled: !!d,
    queryFn: () => runWidgets(d!, period, tz),
    retry: (n, err) => n < 5 && retryAfter(err) !== null,
    retryDelay: (_n, err) => (retryAfter(err) ?? 1) * 1000,
  });
