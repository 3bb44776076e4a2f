import { useEffect, useState, type ReactNode } from 'react';
import { useTimeDisplay } from '../hooks/use-time.js';
import { isoOf } from '../lib/text.js';

/**
 * A time as the user chose to read it (issue 22: zone and 12/24 h from the profile), with the
 * zone's short name ("26 Nov 2026, 14:05:03 CET"); the exact UTC instant in its tooltip and
 * `dateTime`. `at` is an ISO timestamp or epoch milliseconds; `date={false}` shows the time of day.
 */
export function Time(props: { at: unknown; date?: boolean; className?: string }) {
  const t = useTimeDisplay();
  const iso =
    typeof props.at === 'number'
      ? Number.isFinite(props.at)
        ? new Date(props.at).toISOString()
        : ''
      : isoOf(props.at);
  return (
    <time dateTime={iso || undefined} title={iso || undefined} className={props.className}>
      {t.when(props.at, props.date ?? true)}
    </time>
  );
}

/**
 * Shows `children` (a page) once the user's preferences are read, so that every time the page
 * writes, with `<Time>` or the plain `when()`, is in the chosen zone and clock from its first
 * render (the table of pages wraps each page in it). A refused read shows the page in the
 * browser's zone; one that does not answer within `waitMs` does not hold the page back either.
 * Once shown, the page is never hidden again.
 */
export function TimesOfTheUser(props: { children: ReactNode; waitMs?: number }) {
  const t = useTimeDisplay();
  const [waited, setWaited] = useState(false);
  // Once shown, the page stays: a refused read that is asked again (a page's own use of the
  // preferences mounts, and an errored query fetches again on mount) is pending again, and
  // hiding the page for it unmounted the page, whose next mount fetched again: a loop that
  // blanked the page and spun the CPU (test/web/pages/profile.test.tsx, 503 on the read).
  const [shown, setShown] = useState(false);
  const ready = shown || t.settled || waited;
  useEffect(() => {
    if (ready && !shown) setShown(true);
  }, [ready, shown]);
  useEffect(() => {
    const timer = setTimeout(() => setWaited(true), props.waitMs ?? 1500);
    return () => clearTimeout(timer);
  }, [props.waitMs]);
  return ready ? props.children : null;
}
