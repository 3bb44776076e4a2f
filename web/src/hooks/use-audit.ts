import { useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  auditActions,
  auditCsv,
  auditKeys,
  auditPage,
  auditRecord,
  followAudit,
  type AuditFilters,
  type AuditRow,
} from '../api/audit.js';

export const useAuditActions = () => useQuery({ queryKey: auditKeys.actions, queryFn: auditActions });

/** The first page of the view (a refused search, e.g. without its window, is shown, not retried). */
export const useAuditFirst = (f: AuditFilters) =>
  useQuery({ queryKey: auditKeys.first(f), queryFn: () => auditPage(f), retry: false });

/** Follows the audit stream from `cursor` while it is not null; records go to the latest `onRow`. */
export function useAuditStream(cursor: string | null, onRow: (r: AuditRow) => void): void {
  const handler = useRef(onRow);
  useEffect(() => {
    handler.current = onRow;
  });
  useEffect(() => {
    if (cursor === null) return;
    const stop = new AbortController();
    void followAudit(cursor, (r) => handler.current(r), stop.signal).catch(() => {});
    return () => stop.abort();
  }, [cursor]);
}

/** Reads on demand: an older page, one record with its params, the CSV. */
export const auditReads = { older: auditPage, record: auditRecord, csv: auditCsv };
