import { useState } from 'react';
import { errorSentence } from '../api/error-words.js';
import { ApiFailure } from '../api/failure.js';
import { useMe } from '../api/me.js';
import type { Preferences } from '../api/preferences.js';
import { Field } from '../components/field.js';
import { NewPasswordFields } from '../components/new-password.js';
import { usePreferences } from '../hooks/use-preferences.js';
import { useSavePreferences } from '../hooks/use-save-preferences.js';
import { useSetPassword } from '../hooks/use-users.js';
import { when, zoneName } from '../lib/text.js';

const ROLE_WORDS: Record<string, string> = { superadmin: 'superadmin', admin: 'administrator', user: 'operator' };

// Current names Chromium's list gives under their former ones (Asia/Calcutta...): offered as well,
// where this browser knows them, so that a user finds the name they know.
const CURRENT_NAMES = [
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Asia/Ho_Chi_Minh',
  'Asia/Yangon',
  'Europe/Kyiv',
  'America/Nuuk',
];
const known = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

/** The zones this browser knows, the saved one among them even when it does not (the plane checked it). */
function zones(saved: string | null): string[] {
  const listed = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const all = new Set(['UTC', ...listed, ...CURRENT_NAMES.filter(known)]);
  if (saved) all.add(saved);
  return [...all].sort();
}

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The code of a refusal, to put its sentence beside the field it concerns. */
const codeOf = (err: unknown) => (err instanceof ApiFailure ? err.code : '');

/**
 * How times read (issue 22, docs/preferences.md): the zone (an IANA name, or the browser's) and the
 * 12/24 h clock. PUT replaces the whole record, so the saved live views go back as they were read.
 */
function TimesForm(props: { saved: Preferences }) {
  const save = useSavePreferences();
  const [zone, setZone] = useState(props.saved.timezone ?? '');
  const [clock, setClock] = useState(props.saved.clock);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<{ code: string; text: string } | null>(null);
  const preview = { zone: zone || null, clock };
  return (
    <form
      className="profile-form"
      aria-label="Times"
      onSubmit={(e) => {
        e.preventDefault();
        setDone(false);
        save.mutate(
          { timezone: zone || null, clock, views: props.saved.views },
          {
            onSuccess: () => {
              setError(null);
              setDone(true);
            },
            onError: (err) => setError({ code: codeOf(err), text: errorSentence(err) }),
          },
        );
      }}
    >
      <h3>Times</h3>
      <Field
        label="Time zone"
        error={error?.code === 'bad_timezone' ? error.text : null}
        hint={`Now ${zoneName(preview)}.`}
      >
        {(a) => (
          <select {...a} name="timezone" value={zone} onChange={(e) => setZone(e.target.value)}>
            <option value="">The browser&apos;s ({browserZone()})</option>
            {zones(props.saved.timezone).map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
        )}
      </Field>
      <fieldset className="clock">
        <legend>Clock</legend>
        <label>
          <input type="radio" name="clock" value="24h" checked={clock === '24h'} onChange={() => setClock('24h')} />
          24-hour
        </label>
        <label>
          <input type="radio" name="clock" value="12h" checked={clock === '12h'} onChange={() => setClock('12h')} />
          12-hour
        </label>
        {error?.code === 'bad_clock' && (
          <p className="error" role="alert">
            {error.text}
          </p>
        )}
      </fieldset>
      <p className="meta" data-testid="time-preview">
        {/* The form's choice, before it is saved. */}A time will read: <time>{when(Date.now(), preview)}</time>
      </p>
      {error && error.code !== 'bad_timezone' && error.code !== 'bad_clock' && (
        <p className="error" role="alert">
          {error.text}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          Save times
        </button>
        {done && (
          <span className="note ok" role="status">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}

/**
 * The own password (PATCH /api/v1/users/{own id} {password}, document 1: anyone changes the own
 * name and password). The confirmation is checked here before anything is sent; a refusal is said
 * beside the new password and what was typed stays. The session goes on (the plane ends the
 * sessions only when an administrator resets another's password).
 */
function PasswordForm(props: { userId: string }) {
  const set = useSetPassword();
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  return (
    <form
      className="profile-form"
      aria-label="Password"
      onSubmit={(e) => {
        e.preventDefault();
        setDone(false);
        if (password !== again) {
          setMismatch(true);
          return;
        }
        setMismatch(false);
        set.mutate(
          { id: props.userId, password },
          {
            onSuccess: () => {
              setError(null);
              setPassword('');
              setAgain('');
              setDone(true);
            },
            onError: (err) => setError(errorSentence(err)),
          },
        );
      }}
    >
      <h3>Password</h3>
      <NewPasswordFields
        password={password}
        again={again}
        onPassword={setPassword}
        onAgain={setAgain}
        mismatch={mismatch}
        error={error}
        hint="8 to 1,024 characters."
        names={{ password: 'new-password', confirm: 'confirm-password' }}
      />
      <div className="actions">
        <button type="submit" disabled={set.isPending}>
          Change password
        </button>
        {done && (
          <span className="note ok" role="status">
            Password changed.
          </span>
        )}
      </div>
    </form>
  );
}

/** The signed-in user's own page (every role): who they are, how times read, the own password. */
export function ProfilePage() {
  const me = useMe();
  const prefs = usePreferences();
  if (!me) return null;
  return (
    <section className="admin profile">
      <h2>Profile</h2>
      <p className="meta">
        <b>{me.name || me.login}</b> · signed in as {me.login} · {ROLE_WORDS[me.role] ?? me.role}
      </p>
      {prefs.isPending ? (
        <p className="empty">Loading…</p>
      ) : prefs.isError ? (
        <p className="error" role="alert">
          Your preferences could not be read. {errorSentence(prefs.error)}{' '}
          <button onClick={() => prefs.refetch()}>Retry</button>
        </p>
      ) : (
        <TimesForm saved={prefs.data} />
      )}
      <PasswordForm userId={me.id} />
    </section>
  );
}
