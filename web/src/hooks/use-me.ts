import { useMutation, useQuery } from '@tanstack/react-query';
import { authKeys, me, signIn, signOut } from '../api/auth.js';

/**
 * The signed-in user and session (GET /auth/me) for the session `token`; nothing is asked
 * without one. For the shell: pages read the user from MeContext (api/me.ts).
 */
export const useMe = (token: string | null) =>
  useQuery({ queryKey: authKeys.me(token), enabled: !!token, queryFn: me });

/** Signs in; the result holds the session token. */
export const useSignIn = () =>
  useMutation({ mutationFn: (c: { login: string; password: string }) => signIn(c.login, c.password) });

/** Ends the session on the plane (the shell forgets it whatever the answer). */
export const useSignOut = () => useMutation({ mutationFn: signOut });
