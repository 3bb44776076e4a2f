import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';

/**
 * A request that got no answer at all: fetch rejects with a TypeError whose words differ per
 * browser (Chromium "Failed to fetch", Firefox "NetworkError when attempting to fetch resource.",
 * Safari "Load failed"). A refusal of the plane (ApiFailure) is an answer: the plane is there.
 */
export function isNetworkFailure(error: unknown): boolean {
  return error instanceof TypeError && /fetch|network|load failed/i.test(error.message);
}

/**
 * Why the console cannot reach the plane, or null: the browser says it is offline
 * (navigator.onLine, its online and offline events) and the plane has not answered since, or the
 * last read or change failed without an answer (the cached shell still opens the console; its
 * reads fail). The next answer clears it. An answer also outweighs the browser's word: a console
 * beside its plane on a machine with loopback alone (a kiosk at the recorder) is "offline" to
 * Chromium all along while the plane answers every read.
 */
export function useOffline(): 'browser' | 'unanswered' | null {
  const qc = useQueryClient();
  const [browserOffline, setBrowserOffline] = useState(() => !navigator.onLine);
  const [unanswered, setUnanswered] = useState(false);
  // Whether the plane answered since the browser last said it went offline.
  const [answered, setAnswered] = useState(false);
  useEffect(() => {
    const update = () => {
      setBrowserOffline(!navigator.onLine);
      if (!navigator.onLine) setAnswered(false);
    };
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  useEffect(() => {
    const seen = (action: { type: string; error?: unknown }) => {
      if (action.type === 'error') {
        const none = isNetworkFailure(action.error);
        setUnanswered(none);
        if (!none) setAnswered(true);
      } else if (action.type === 'success') {
        setUnanswered(false);
        setAnswered(true);
      }
    };
    const queries = qc.getQueryCache().subscribe((e) => {
      if (e.type === 'updated') seen(e.action);
    });
    const mutations = qc.getMutationCache().subscribe((e) => {
      if (e.type === 'updated') seen(e.action);
    });
    return () => {
      queries();
      mutations();
    };
  }, [qc]);
  return browserOffline && !answered ? 'browser' : unanswered ? 'unanswered' : null;
}

/** The banner the console shows while it cannot reach the plane (issue 22: it says so when offline). */
export function OfflineBanner() {
  const offline = useOffline();
  const qc = useQueryClient();
  if (!offline) return null;
  return (
    <div className="offline-banner" role="status">
      <span>
        You are offline:{' '}
        {offline === 'browser'
          ? 'this device has no network. The console shows what it had loaded; nothing can be changed until the connection returns.'
          : 'the plane does not answer. The console shows what it had loaded; nothing can be changed until it answers again.'}
      </span>
      {offline === 'unanswered' && (
        <button type="button" onClick={() => void qc.refetchQueries({ type: 'active' })}>
          Try again
        </button>
      )}
    </div>
  );
}
