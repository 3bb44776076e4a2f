import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { sec } from '../http/list.js';
import type { PreferencesService } from './preferences.service.js';
import {
  checkPreferencesBody,
  PREFERENCES_MAX_BYTES,
  PreferencesBody,
  preferencesCode,
  PreferencesReply,
} from './preferences.schemas.js';

const tags = ['me'];

/** Session scope: any signed-in user, the own record only (the route names no user). */
export function preferencesRoutes(app: PlaneApp, deps: { preferences: PreferencesService }): void {
  app.get(
    '/api/v1/me/preferences',
    {
      schema: {
        errors: [],
        tags,
        summary: "The caller's own preferences (the defaults until saved); cameras no longer visible are left out",
        security: sec,
        response: { 200: PreferencesReply },
      },
    },
    async (req) => deps.preferences.get(principalOf(req)),
  );

  app.put(
    '/api/v1/me/preferences',
    {
      schema: {
        errors: [
          'payloadTooLarge',
          'bad_timezone',
          'bad_clock',
          'bad_views',
          'bad_name',
          'bad_layout',
          'bad_camera',
          'duplicate_view_name',
        ],
        tags,
        summary: "Replace the caller's own preferences whole (at most 64 KiB, 32 views); answers them as read",
        security: sec,
        body: PreferencesBody,
        response: { 200: PreferencesReply },
      },
      bodyLimit: PREFERENCES_MAX_BYTES,
      preValidation: checkPreferencesBody,
      config: { validationCode: preferencesCode },
    },
    async (req) => deps.preferences.put(principalOf(req), req.body),
  );
}
