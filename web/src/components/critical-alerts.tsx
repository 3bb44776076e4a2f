import { useAlertSettings, useCriticalToasts } from '../hooks/use-notifications.js';
import { Link } from '../router.js';
import { Time } from './time.js';

/**
 * The live alert's switches (issue 24): on or off (off by default, kept by this browser), and the
 * sound while it is on.
 */
export function CriticalAlertSwitch() {
  const { settings, setSettings } = useAlertSettings();
  return (
    <div className="critical-switch">
      <label>
        <input
          type="checkbox"
          checked={settings.enabled}
          onChange={(e) => setSettings({ ...settings, enabled: e.target.checked })}
        />{' '}
        Show a notice on this screen for each new critical event
      </label>
      <label>
        <input
          type="checkbox"
          checked={settings.sound}
          disabled={!settings.enabled}
          onChange={(e) => setSettings({ ...settings, sound: e.target.checked })}
        />{' '}
        with a sound
      </label>
    </div>
  );
}

/**
 * The toasts of the live alert, over every page (the shell holds it): each new critical event's
 * title and camera with its time, a link to its card and Dismiss. Nothing is drawn while there is
 * none.
 */
export function CriticalToasts() {
  const { toasts, dismiss } = useCriticalToasts();
  if (!toasts.length) return null;
  return (
    <div className="toasts" role="region" aria-label="Critical events" aria-live="assertive">
      {toasts.map((t) => (
        <div key={t.eventId} className="toast" data-event={t.eventId}>
          <b>Critical:</b> {t.title} on {t.camera}
          {t.occurredAt && (
            <>
              {' '}
              at <Time at={t.occurredAt} date={false} />
            </>
          )}
          <span className="actions">
            <Link to={`/events/${t.eventId}`}>Open</Link>
            <button type="button" className="link" onClick={() => dismiss(t.eventId)}>
              Dismiss
            </button>
          </span>
        </div>
      ))}
    </div>
  );
}
