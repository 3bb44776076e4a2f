import type { PlaneApp } from '../http/typed.js';
import { Type } from 'typebox';
import { underResponseSlot } from '../http/response-slot.js';
import { principalOf } from '../http/principal.js';
import { sec } from '../http/list.js';
import type { EvidenceService } from './evidence.service.js';
import { attachmentHeaders } from './disposition.js';

const Params = Type.Object({ ref: Type.String({ description: 'attachment ref (a UUIDv7); any other shape is 404' }) });
const tags = ['attachments'];

/** Authenticated scope: any signed-in user, camera rights rechecked on every request. */
export function evidenceReadRoutes(app: PlaneApp, deps: { evidence: EvidenceService }): void {
  app.get(
    '/api/v1/attachments/:ref',
    {
      schema: {
        tags,
        security: sec,
        params: Params,
        response: {
          200: Type.Unsafe({
            type: 'string',
            format: 'binary',
            description: 'the bytes, with the original Content-Type',
          }),
        },
        summary:
          'Download an attachment (exact Content-Length, 64 KiB frames, no-store); audited as data.blob_download',
        description: 'not_found: absent or outside your rights; object_gone: the bytes are gone.',
        errors: ['notFound', 'objectGone', 'archivedDataExpired', 'eventResponseBusy'],
      },
    },
    async (req, reply) => {
      const file = await underResponseSlot(reply, deps.evidence, () =>
        deps.evidence.download(principalOf(req), req.params.ref),
      );
      return reply
        .header('content-type', file.contentType)
        .header('content-length', String(file.size))
        .header('cache-control', 'private, no-store')
        .header('pragma', 'no-cache')
        .headers(attachmentHeaders(file.contentType, req.params.ref))
        .send(file.body);
    },
  );
}
