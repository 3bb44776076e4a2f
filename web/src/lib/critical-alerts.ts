import { eventTitle } from './text.js';
import type { StreamFrame } from './live-feed.js';

/**
 * The live in-console alert (issue 24): a toast, optionally a sound, for each critical event
 * (severity 4) that arrives on the live event stream while the console is open. Off by default;
 * the choice is the browser's (localStorage), not the account's: one desk may want the sound,
 * another screen on the same account not.
 */
export interface AlertSettings {
  enabled: boolean;
  sound: boolean;
}

export const ALERT_SETTINGS_KEY = 'argus.critical-alerts';
export const OFF: AlertSettings = { enabled: false, sound: false };
/** Toasts on screen at most; older ones give way (the feed keeps every event). */
export const MAX_TOASTS = 5;
export const CRITICAL = 4;

export function readAlertSettings(storage: Pick<Storage, 'getItem'>): AlertSettings {
  try {
    const v = JSON.parse(storage.getItem(ALERT_SETTINGS_KEY) ?? 'null') as Partial<AlertSettings> | null;
    return { enabled: v?.enabled === true, sound: v?.sound === true };
  } catch {
    return OFF;
  }
}

/** The event this window sends when the setting changes (another tab hears the `storage` event). */
export const ALERT_SETTINGS_CHANGED = 'argus-critical-alerts';

export function writeAlertSettings(storage: Pick<Storage, 'setItem'>, s: AlertSettings): void {
  storage.setItem(ALERT_SETTINGS_KEY, JSON.stringify({ enabled: s.enabled, sound: s.sound }));
}

/** A frame that announces a new critical event: not a change or a deletion of one already seen. */
export function isCriticalArrival(f: StreamFrame): boolean {
  return f.severity === CRITICAL && !f.updated && !f.deleted && !f.reconcile_required;
}

export interface Toast {
  eventId: string;
  title: string;
  camera: string;
  occurredAt: string;
}

export function toastOf(f: StreamFrame): Toast {
  return {
    eventId: f.id,
    title: eventTitle(f),
    camera: typeof f.camera_name === 'string' && f.camera_name ? f.camera_name : 'no camera',
    occurredAt: typeof f.occurred_at === 'string' ? f.occurred_at : '',
  };
}

/** The toasts with `t` first: one per event (a replayed frame does not add a second), at most MAX_TOASTS. */
export function withToast(list: readonly Toast[], t: Toast): Toast[] {
  if (list.some((x) => x.eventId === t.eventId)) return [...list];
  return [t, ...list].slice(0, MAX_TOASTS);
}
