import type { PlaneApp } from '../http/typed.js';
import { Type } from 'typebox';
import { underResponseSlot } from '../http/response-slot.js';
import { clientOf } from '../http/scopes.js';
import type { EvidenceService } from './evidence.service.js';
import type { SnapshotService } from './snapshot.service.js';
import { attachmentHeaders } from './disposition.js';

const Params = Type.Object({ ref: Type.String({ description: 'the attachment ref the link was signed for' }) });
const Query = Type.Object({
  expires: Type.String({ maxLength: 32, description: 'Unix seconds after which the link is refused' }),
  signature: Type.String({ maxLength: 128, description: 'the plane\u2019s signature of ref and expires' }),
});

/**
 * Without a session: the link a notification carries (document 4 §13) is the right to that one
 * snapshot for 24 h. It shares the response slots of downloads and previews.
 */
export function snapshotRoutes(app: PlaneApp, deps: { evidence: EvidenceService; snapshots: SnapshotService }): void {
  app.get(
    '/api/v1/notification-snapshots/:ref',
    {
      schema: {
        tags: ['attachments'],
        params: Params,
        querystring: Query,
        response: { 200: Type.Unsafe({ type: 'string', format: 'binary', description: 'the image, as its type' }) },
        summary:
          'A notification\u2019s snapshot through its signed link (no session; valid 24 h); audited as data.blob_download with link true',
        description:
          'not_found: not a link of this plane, or no such attachment; snapshot_link_expired: past its 24 h; object_gone: ' +
          'the bytes are gone; archived_data_expired: purged with its event; event_response_busy: the 4 response slots.',
        errors: ['notFound', 'snapshotLinkExpired', 'objectGone', 'archivedDataExpired', 'eventResponseBusy'],
      },
    },
    async (req, reply) => {
      const file = await underResponseSlot(reply, deps.evidence, () =>
        deps.snapshots.open(req.params.ref, req.query.expires, req.query.signature, clientOf(req)),
      );
      return reply
        .header('content-type', file.contentType)
        .header('content-length', String(file.size))
        .header('cache-control', 'private, no-store')
        .header('pragma', 'no-cache')
        .header('referrer-policy', 'no-referrer')
        .headers(attachmentHeaders(file.contentType, req.params.ref))
        .send(file.body);
    },
  );
}
