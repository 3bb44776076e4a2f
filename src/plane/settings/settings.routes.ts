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
        description: 'Errors: 500 plane_config_unreadable:<detail>.',
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
          'Errors: 400 no_settings_supplied, dvr_export_max_secs_out_of_range, invalid_public_url, destructive_volume_retention_acknowledgement_required, ' +
          'or a validation text; 409 settings_busy (lock held over 10 s), rust_log_override, settings_changed; 500 plane_config_unreadable:<detail>.',
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
        description: 'Errors: 400 validation text; 500 plane_config_unreadable:<detail>; 502 the failure detail.',
      },
    },
    async (req) => deps.settings.testStorage(req.body as never),
  );
}
