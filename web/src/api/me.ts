import { createContext, useContext } from 'react';
import type { User } from './client.js';

/** The signed-in user, for what a page offers (the API decides what is allowed either way). */
export const MeContext = createContext<User | null>(null);
export const useMe = () => useContext(MeContext);
export const isAdmin = (u: User | null) => u?.role === 'admin' || u?.role === 'superadmin';
