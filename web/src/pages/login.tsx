import { useState } from 'react';
import { api } from '../api/client.js';
import { errorSentence } from '../api/error-words.js';

export function LoginPage(props: { onSignedIn(token: string): void }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const expired = new URLSearchParams(window.location.search).has('next');
  return (
    <form
      className="login"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const r = await api<{ token: string }>('POST', '/api/v1/auth/login', { login, password });
          props.onSignedIn(r.token);
        } catch (err) {
          setError(errorSentence(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      <h1>Argus</h1>
      {expired && !error && <p className="note">Your session ended: sign in again to go back where you were.</p>}
      <label>
        Login
        <input name="login" autoComplete="username" value={login} onChange={(e) => setLogin(e.target.value)} required />
      </label>
      <label>
        Password
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
