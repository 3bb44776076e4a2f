import { client, ok } from './client.js';

export const authKeys = { me: (token: string | null) => ['me', token] as const };

/** A session token for a login and password (401 bad_credentials is the sign-in's refusal, not an expiry). */
export const signIn = (login: string, password: string) =>
  ok(client.POST('/api/v1/auth/login', { body: { login, password } }));

export const me = () => ok(client.GET('/api/v1/auth/me'));

export const signOut = () => ok(client.POST('/api/v1/auth/logout'));
