import { client, ok, type Reply, type Sent } from './client.js';

/**
 * The signed-in user's own preferences (GET, PUT /api/v1/me/preferences, docs/preferences.md):
 * zone (null: the browser's), 12/24 h clock, saved live views.
 */
export type Preferences = Reply<'/api/v1/me/preferences'>;
export type PreferencesChange = Sent<'/api/v1/me/preferences', 'put'>;

// Per session: the shell clears the query cache when the session changes (app.tsx).
export const preferencesKeys = { mine: ['me', 'preferences'] as const };

export const myPreferences = () => ok(client.GET('/api/v1/me/preferences'));
/** Replaces the whole record; the reply is the record as a GET reads it. */
export const savePreferences = (body: PreferencesChange) => ok(client.PUT('/api/v1/me/preferences', { body }));
