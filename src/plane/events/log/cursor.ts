/**
 * Stream cursors (document 2, live stream): `g:<n>`, or `d<purge-day>:<n>` once a purge day
 * applies. The one formatter: feed and intake replies, SSE `id:` lines and resume points.
 */
export function cursorOf(day: string | null, seq: number): string {
  return day ? `d${day}:${seq}` : `g:${seq}`;
}

/** The cursor of a safe head (EventLog.head). */
export function streamCursor(head: { head: number; purge_day: string | null }): string {
  return cursorOf(head.purge_day, head.head);
}

/** A cursor as sent; null for anything else. */
export function parseEventCursor(text: string): { day: string | null; seq: number } | null {
  const m = /^(?:g|d(\d{8})):(\d{1,15})$/.exec(text);
  return m ? { day: m[1] ?? null, seq: Number(m[2]) } : null;
}

/** The UTC day of `ms` as YYYYMMDD (the `d<purge-day>:` prefix of stream cursors). */
export function purgeDayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10).replace(/-/g, '');
}
