import { useState } from 'react';
import { errorSentence } from '../api/error-words.js';
import { useSignIn } from '../hooks/use-me.js';

export function LoginPage(props: { onSignedIn(token: string): void }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const signIn = useSignIn();
  const busy = signIn.isPending;
  const expired = new URLSearchParams(window.location.search).has('next');
  return (
    <form
      className="login"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        try {
          const r = await signIn.run({ login, password });
          props.onSignedIn(r.token);
        } catch (err) {
          setError(errorSentence(err));
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
