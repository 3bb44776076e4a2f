import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { sec } from '../http/list.js';
import type { SettingsService } from './settings.service.js';
import {
  IfMatchHeaders,
  SettingsPatchBody,
  SettingsReply,
  StorageTestBody,
  StorageTestReply,
} from './settings.schemas.js';

const tags = ['settings'];

/** Superadmin scope: plane.toml through the API (document 1, "Control-plane settings"). */
export function settingsRoutes(app: PlaneApp, deps: { settings: SettingsService }): void {
  app.get(
    '/api/v1/settings/plane',
    {
      schema: {
        tags,
        security: sec,
        response: { 200: SettingsReply },
        summary: 'The plane settings; ETag: hash of plane.toml as read',
        errors: ['planeConfigUnreadable'],
      },
    },
    async (_req, reply) => {
      const r = await deps.settings.get();
      return reply
        .header('etag', r.etag)
        .header('cache-control', 'no-store')
        .send(r.body as never);
    },
  );
  app.patch(
    '/api/v1/settings/plane',
    {
      schema: {
        tags,
        security: sec,
        headers: IfMatchHeaders,
        body: SettingsPatchBody,
        response: { 200: SettingsReply },
        summary: 'Edit plane.toml in place (comments and foreign keys kept); If-Match: the ETag of the GET',
        description:
          'A 400 may carry a validation text in place of a code; 409 settings_busy: the lock was held over 10 s.',
        errors: [
          'no_settings_supplied',
          'dvr_export_max_secs_out_of_range',
          'invalid_public_url',
          'destructive_volume_retention_acknowledgement_required',
          'evidence_dir_refused',
          'settingsInvalid',
          'settings_busy',
          'rustLogOverride',
          'settings_changed',
          'event_storage_rotation_blocked',
          'planeConfigUnreadable',
        ],
      },
    },
    async (req, reply) => {
      const r = await deps.settings.patch(principalOf(req), req.body as never, req.headers['if-match']);
      return reply.header('etag', r.etag).send(r.body as never);
    },
  );
  app.post(
    '/api/v1/settings/plane/evidence-storage/test',
    {
      schema: {
        tags,
        security: sec,
        body: StorageTestBody,
        response: { 200: StorageTestReply },
        summary: 'Check a candidate evidence storage (write, read back, delete a probe object) without saving it',
        description: 'A 400 carries a validation text in place of a code; a 502 the failure detail.',
        errors: ['settingsInvalid', 'evidence_dir_refused', 'planeConfigUnreadable', 'storageCheckFailed'],
      },
    },
    async (req) => deps.settings.testStorage(req.body as never),
  );
}
