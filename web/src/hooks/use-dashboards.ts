import { useCallback, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  addWidget,
  changeWidget,
  createDashboard,
  dashboard,
  dashboardKeys,
  deleteDashboard,
  listDashboards,
  removeWidget,
  renameDashboard,
  type NewDashboard,
  type NewWidget,
  type WidgetChange,
} from '../api/dashboards.js';
import { feedPage, followEvents } from '../api/events.js';

export const useDashboards = () => useQuery({ queryKey: dashboardKeys.all, queryFn: listDashboards });

export const useDashboard = (id: string) => useQuery({ queryKey: dashboardKeys.one(id), queryFn: () => dashboard(id) });

/**
 * The dashboard as saved now, read past the cache and without writing to it (to show "theirs"
 * after a 409 stale_revision: a cache update would open the edited widget's form afresh).
 */
export const useFreshDashboard = (id: string) => useCallback(() => dashboard(id), [id]);

export function useCreateDashboard() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NewDashboard) => createDashboard(body),
    onSuccess: () => qc.invalidateQueries({ queryKey: dashboardKeys.all }),
  });
}

/** Deletes a dashboard; the list is read again. */
export function useDeleteDashboard() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: deleteDashboard,
    onSuccess: () => qc.invalidateQueries({ queryKey: dashboardKeys.all }),
  });
}

/**
 * The edits of one dashboard: its name and description, and its widgets (change, remove). Each
 * reads the dashboard again once done; a refusal (409 stale_revision) is the caller's to show.
 */
export function useDashboardEdits(id: string) {
  const qc = useQueryClient();
  const again = () => qc.invalidateQueries({ queryKey: dashboardKeys.one(id) });
  return {
    again,
    rename: useMutation({
      mutationFn: (body: { revision: number; name: string; description: string }) => renameDashboard(id, body),
      onSuccess: again,
    }),
    change: useMutation({
      mutationFn: (a: { widget: string; body: WidgetChange }) => changeWidget(a.widget, a.body),
      onSettled: again,
    }),
    remove: useMutation({ mutationFn: (widget: string) => removeWidget(widget), onSettled: again }),
  };
}

/**
 * A widget's change that leaves the reading again to the caller: its form keeps what was typed
 * through a 409 stale_revision (a read of the dashboard would open the form afresh).
 */
export const useChangeWidget = () =>
  useMutation({ mutationFn: (a: { widget: string; body: WidgetChange }) => changeWidget(a.widget, a.body) });

/** A report added to a dashboard as a widget; every open dashboard is read again. */
export function useAddWidget() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (a: { dashboard: string; body: NewWidget }) => addWidget(a.dashboard, a.body),
    onSuccess: () => qc.invalidateQueries({ queryKey: dashboardKeys.anyOne }),
  });
}

/**
 * A count that grows, at most every 5 s, while new events arrive (a live dashboard re-runs its
 * widgets on it): the event stream followed from the feed's head.
 */
export function useLiveTick(enabled: boolean, id: string | undefined): number {
  const [tick, setTick] = useState(0);
  const last = useRef(0);
  useEffect(() => {
    if (!enabled) return;
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | null = null;
    void (async () => {
      const head = await feedPage({}, null, 1).catch(() => null);
      if (!head?.stream_cursor || stop.signal.aborted) return;
      await followEvents(
        head.stream_cursor,
        {},
        () => {
          if (timer) return;
          timer = setTimeout(
            () => {
              timer = null;
              last.current = Date.now();
              setTick((t) => t + 1);
            },
            Math.max(0, 5000 - (Date.now() - last.current)),
          );
        },
        stop.signal,
      ).catch(() => {});
    })();
    return () => {
      stop.abort();
      if (timer) clearTimeout(timer);
    };
  }, [enabled, id]);
  return tick;
}
