import { useCallback, useEffect, useRef, useState } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  changeChannel,
  changeRule,
  createChannel,
  createRule,
  deleteChannel,
  deleteRule,
  followNewEvents,
  listChannels,
  listDeliveries,
  listRules,
  notificationKeys,
  retryDelivery,
  testChannel,
  type ChannelChange,
  type DeliveryFilter,
  type RuleChange,
} from '../api/notifications.js';
import {
  ALERT_SETTINGS_CHANGED,
  isCriticalArrival,
  readAlertSettings,
  toastOf,
  withToast,
  writeAlertSettings,
  type AlertSettings,
  type Toast,
} from '../lib/critical-alerts.js';

/** A short two-tone beep through Web Audio (no sound file to load); silent where the browser has none or refuses. */
function beep(): void {
  try {
    const Ctx = (window as { AudioContext?: typeof AudioContext }).AudioContext;
    if (!Ctx) return;
    const ctx = new Ctx();
    const gain = ctx.createGain();
    gain.gain.value = 0.08;
    gain.connect(ctx.destination);
    [880, 660].forEach((hz, i) => {
      const o = ctx.createOscillator();
      o.frequency.value = hz;
      o.connect(gain);
      o.start(ctx.currentTime + i * 0.18);
      o.stop(ctx.currentTime + i * 0.18 + 0.15);
    });
    setTimeout(() => void ctx.close().catch(() => undefined), 1000);
  } catch {
    /* a browser that refuses audio without a gesture: the toast says it */
  }
}

/**
 * The browser's alert setting (lib/critical-alerts.ts), the same in every component that reads
 * it: a change here is announced to this window, a change in another tab arrives as `storage`.
 */
export function useAlertSettings() {
  const [settings, setState] = useState<AlertSettings>(() => readAlertSettings(localStorage));
  useEffect(() => {
    const read = () => setState(readAlertSettings(localStorage));
    window.addEventListener(ALERT_SETTINGS_CHANGED, read);
    window.addEventListener('storage', read);
    return () => {
      window.removeEventListener(ALERT_SETTINGS_CHANGED, read);
      window.removeEventListener('storage', read);
    };
  }, []);
  const setSettings = useCallback((s: AlertSettings) => {
    writeAlertSettings(localStorage, s);
    window.dispatchEvent(new Event(ALERT_SETTINGS_CHANGED));
  }, []);
  return { settings, setSettings };
}

/**
 * The live alert for critical events: while the setting is on, the live event stream followed
 * (again after an end or a failure, waiting up to 10 s), each new critical event a toast, with a
 * beep when the sound is on.
 */
export function useCriticalToasts() {
  const { settings } = useAlertSettings();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const sound = useRef(settings.sound);
  sound.current = settings.sound;

  useEffect(() => {
    if (!settings.enabled) {
      setToasts([]);
      return;
    }
    const stop = new AbortController();
    (async () => {
      for (let attempt = 0; !stop.signal.aborted; attempt++) {
        try {
          await followNewEvents((f) => {
            if (!isCriticalArrival(f)) return;
            setToasts((list) => withToast(list, toastOf(f)));
            if (sound.current) beep();
          }, stop.signal);
          attempt = 0;
        } catch {
          if (stop.signal.aborted) return;
        }
        await new Promise((r) => setTimeout(r, Math.min(10_000, 500 * 2 ** attempt)));
      }
    })();
    return () => stop.abort();
  }, [settings.enabled]);

  const dismiss = useCallback((eventId: string) => setToasts((l) => l.filter((t) => t.eventId !== eventId)), []);
  return { toasts, dismiss };
}

export const useRules = () => useQuery({ queryKey: notificationKeys.rules, queryFn: listRules });
export const useChannels = () => useQuery({ queryKey: notificationKeys.channels, queryFn: listChannels });

/** The delivery log of `filter`, a page at a time (Load more follows `next`), read again every 15 s. */
export const useDeliveries = (filter: DeliveryFilter) =>
  useInfiniteQuery({
    queryKey: notificationKeys.deliveries(filter),
    queryFn: ({ pageParam }) => listDeliveries(filter, pageParam ?? undefined),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next ?? null,
    // Attempts, errors and states move while the page is open (a receiver down, then back).
    refetchInterval: 15_000,
  });

/** Create, change and delete rules; the list is read again after each. */
export function useRuleEdits() {
  const qc = useQueryClient();
  const onSuccess = () => qc.invalidateQueries({ queryKey: notificationKeys.rules });
  return {
    create: useMutation({ mutationFn: createRule, onSuccess }),
    change: useMutation({ mutationFn: (a: { id: string; body: RuleChange }) => changeRule(a.id, a.body), onSuccess }),
    remove: useMutation({ mutationFn: deleteRule, onSuccess }),
  };
}

/** Create, change, test and delete channels; a test's delivery shows in the log too. */
export function useChannelEdits() {
  const qc = useQueryClient();
  const onSuccess = () => qc.invalidateQueries({ queryKey: notificationKeys.channels });
  return {
    create: useMutation({ mutationFn: createChannel, onSuccess }),
    change: useMutation({
      mutationFn: (a: { id: string; body: ChannelChange }) => changeChannel(a.id, a.body),
      onSuccess,
    }),
    remove: useMutation({ mutationFn: deleteChannel, onSuccess }),
    test: useMutation({
      mutationFn: testChannel,
      onSuccess: () => qc.invalidateQueries({ queryKey: notificationKeys.allDeliveries }),
    }),
  };
}

/** Retry a dead delivery; the log is read again. */
export function useRetryDelivery() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: retryDelivery,
    onSuccess: () => qc.invalidateQueries({ queryKey: notificationKeys.allDeliveries }),
  });
}
