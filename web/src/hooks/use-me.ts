import { useCallback, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { authKeys, me, signIn, signOut } from '../api/auth.js';

/**
 * The signed-in user and session (GET /auth/me) for the session `token`; nothing is asked
 * without one. For the shell: pages read the user from MeContext (api/me.ts).
 */
export const useMe = (token: string | null) =>
  useQuery({ queryKey: authKeys.me(token), enabled: !!token, queryFn: me });

/**
 * One call with its pending state. Signing in and out are plain calls rather than TanStack
 * mutations: the login page is the console's first load, and the mutation machinery (observer
 * and hook) is kilobytes it would carry for two calls (issue 22: at most 90 kB of JavaScript).
 */
function usePendingCall<A extends unknown[], R>(call: (...args: A) => Promise<R>) {
  const [isPending, setPending] = useState(false);
  const run = useCallback(
    async (...args: A): Promise<R> => {
      setPending(true);
      try {
        return await call(...args);
      } finally {
        setPending(false);
      }
    },
    [call],
  );
  return { isPending, run };
}

const signInWith = (c: { login: string; password: string }) => signIn(c.login, c.password);

/** Signs in; the result holds the session token. */
export const useSignIn = () => usePendingCall(signInWith);

/** Ends the session on the plane (the shell forgets it whatever the answer). */
export const useSignOut = () => usePendingCall(signOut);
