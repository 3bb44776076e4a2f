import type { PlaneApp } from '../http/typed.js';
import { Type } from 'typebox';
import { underResponseSlot } from '../http/response-slot.js';
import { principalOf } from '../http/principal.js';
import { sec } from '../http/list.js';
import type { EvidenceService } from './evidence.service.js';
import type { PreviewService } from './preview.service.js';

const Params = Type.Object({ ref: Type.String({ description: 'attachment ref (a UUIDv7); any other shape is 404' }) });

/** Authenticated scope: any signed-in user, camera rights rechecked on every request. */
export function previewRoutes(app: PlaneApp, deps: { evidence: EvidenceService; previews: PreviewService }): void {
  app.get(
    '/api/v1/attachments/:ref/preview',
    {
      schema: {
        tags: ['attachments'],
        security: sec,
        params: Params,
        response: { 200: Type.Unsafe({ type: 'string', format: 'binary', description: 'a JPEG within 320 x 320' }) },
        summary: 'A small JPEG preview of an image or video attachment (exact Content-Length, 64 KiB frames, no-store)',
        description:
          'Built in the background after upload; audited as data.blob_download with preview true. no_preview: a type ' +
          'without a preview, not built yet or build failed (retry later); not_found: absent or outside your rights; ' +
          'object_gone: the bytes are gone; archived_data_expired: purged; event_response_busy: the 4 response slots shared with downloads.',
        errors: ['noPreview', 'notFound', 'objectGone', 'archivedDataExpired', 'eventResponseBusy'],
      },
    },
    async (req, reply) => {
      // The same slots as downloads: held until the body ends or the connection breaks.
      const file = await underResponseSlot(reply, deps.evidence, () =>
        deps.previews.preview(principalOf(req), req.params.ref),
      );
      return reply
        .header('content-type', 'image/jpeg')
        .header('content-length', String(file.size))
        .header('cache-control', 'private, no-store')
        .header('pragma', 'no-cache')
        .send(file.body);
    },
  );
}
