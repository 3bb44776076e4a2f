import { describe, expect, it } from 'vitest';
import {
  ALERT_SETTINGS_KEY,
  isCriticalArrival,
  MAX_TOASTS,
  readAlertSettings,
  toastOf,
  withToast,
  writeAlertSettings,
} from '../../web/src/lib/critical-alerts.js';
import type { StreamFrame } from '../../web/src/lib/live-feed.js';

// The live alert's pure rules (issue 24): which frames announce a critical event, the toasts kept,
// and the browser's setting (off unless written, anything unreadable is off).

const frame = (over: Partial<StreamFrame> = {}): StreamFrame => ({
  id: 'e1',
  org_id: 'o',
  camera_id: 'c',
  camera_name: 'Gate',
  detector: 'fire.smoke',
  detector_title: { en: 'Smoke' },
  category: 'safety',
  severity: 4,
  occurred_at: '2026-11-26T17:00:00.000Z',
  ...over,
});

/** A storage of one map, as localStorage reads and writes. */
const memory = () => {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
};

describe('critical alerts', () => {
  it('a new critical event is one; a change, a deletion, a reconcile notice or a lower severity is not', () => {
    expect(isCriticalArrival(frame())).toBe(true);
    expect(isCriticalArrival(frame({ updated: true }))).toBe(false);
    expect(isCriticalArrival(frame({ deleted: true }))).toBe(false);
    expect(isCriticalArrival(frame({ reconcile_required: true }))).toBe(false);
    expect(isCriticalArrival(frame({ severity: 3 }))).toBe(false);
    expect(isCriticalArrival(frame({ severity: null }))).toBe(false);
  });

  it('a toast names the title in the reader’s language and the camera; camera-less says so', () => {
    expect(toastOf(frame())).toEqual({
      eventId: 'e1',
      title: 'Smoke',
      camera: 'Gate',
      occurredAt: '2026-11-26T17:00:00.000Z',
    });
    expect(toastOf(frame({ camera_id: null, camera_name: null })).camera).toBe('no camera');
  });

  it('newest first, one per event, at most MAX_TOASTS', () => {
    let list = withToast([], toastOf(frame({ id: 'a' })));
    list = withToast(list, toastOf(frame({ id: 'a' })));
    expect(list.map((t) => t.eventId)).toEqual(['a']);
    for (let i = 0; i < 10; i++) list = withToast(list, toastOf(frame({ id: `n${i}` })));
    expect(list).toHaveLength(MAX_TOASTS);
    expect(list[0]!.eventId).toBe('n9');
  });

  it('the setting: off by default and when unreadable; written and read back', () => {
    const s = memory();
    expect(readAlertSettings(s)).toEqual({ enabled: false, sound: false });
    s.setItem(ALERT_SETTINGS_KEY, '{not json');
    expect(readAlertSettings(s)).toEqual({ enabled: false, sound: false });
    s.setItem(ALERT_SETTINGS_KEY, '{"enabled":"yes","sound":1}');
    expect(readAlertSettings(s)).toEqual({ enabled: false, sound: false });
    writeAlertSettings(s, { enabled: true, sound: true });
    expect(readAlertSettings(s)).toEqual({ enabled: true, sound: true });
  });
});
