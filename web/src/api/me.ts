import { createContext, useContext } from 'react';
import type { User } from './client.js';

/** What the pages read of the signed-in user (GET /api/v1/auth/me's `user`). */
export type SignedIn = Pick<User, 'id' | 'org_id' | 'login' | 'name' | 'role'>;

/** The signed-in user, for what a page offers (the API decides what is allowed either way). */
export const MeContext = createContext<SignedIn | null>(null);
export const useMe = () => useContext(MeContext);
export const isAdmin = (u: SignedIn | null) => u?.role === 'admin' || u?.role === 'superadmin';
