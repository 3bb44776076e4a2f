import { Readable } from 'node:stream';
import type { PlaneApp } from '../../http/typed.js';
import type { Logger } from 'pino';
import { ApiError, errors } from '../../errors.js';
import { validationCodes } from '../../http/list.js';
import { moduleTokenOf } from '../../module-tokens/module-token.scope.js';
import { ATTACHMENT_MAX_BYTES, type EvidenceService } from '../../evidence/evidence.service.js';
import type { IntakeService } from './intake.service.js';
import { AttachmentReply, IntakeBody, IntakeFieldCodes, IntakeReply } from './intake.schemas.js';
import { ITEM_ERRORS } from './intake.validate.js';

const tags = ['intake'];
// The bearer here is a module token secret, not a session.
const security = [{ bearer: [] }];
export const INTAKE_BODY_LIMIT = 8 * 1024 * 1024;

/** The intake scope (module token, document 4 §4). */
export function intakeRoutes(app: PlaneApp, deps: { intake: IntakeService; evidence: EvidenceService }): void {
  app.post(
    '/api/v1/events',
    {
      schema: {
        tags,
        security,
        body: IntakeBody,
        response: { 200: IntakeReply },
        summary: 'Upload 1..500 events (module token, body at most 8 MiB)',
        errors: ['bad_events', 'rateLimited'],
        description:
          'Each item is answered in `results` by index, with its id or an item error ' +
          `(${ITEM_ERRORS.join(', ')}); a bad item does not fail the batch. The same ext_id from the same token ` +
          "returns the first event's id and changes nothing. Over the token's rate: 429 rate_limited with retry_after and Retry-After.",
      },
      bodyLimit: INTAKE_BODY_LIMIT,
      // As sent, before the validator's type coercion (which would turn "x" into ["x"]).
      preValidation: async (req) => {
        const events = (req.body as { events?: unknown } | null)?.events;
        if (events !== undefined && !Array.isArray(events)) throw errors.badRequest('bad_events');
      },
      // The token may come from the process's cache: the statement that accepts the events checks it.
      config: { validationCode: validationCodes(IntakeFieldCodes), textCheckedPerItem: true, moduleTokenCached: true },
    },
    async (req) => {
      try {
        return await deps.intake.ingest(moduleTokenOf(req), req.body.events);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) deps.intake.noteRefused(req.log as Logger, req.ip);
        throw err;
      }
    },
  );

  app.register(async (raw) => {
    // The body is the attachment itself, whatever its type: no parser but this one.
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (req, payload, done) => {
      if (Number(req.headers['content-length'] ?? 0) > ATTACHMENT_MAX_BYTES) {
        done(errors.attachmentTooLarge(), undefined);
        return;
      }
      // The stream itself: the evidence service writes it to storage as it arrives.
      done(null, payload);
    });
    raw.post(
      '/api/v1/attachments',
      {
        schema: {
          tags,
          security,
          response: { 201: AttachmentReply },
          summary: 'Upload one evidence attachment (module token): the raw body is the bytes, Content-Type is kept',
          errors: ['attachmentTooLarge', 'attachmentUploadBusy', 'attachmentQuotaExceeded', 'evidenceStorageFull'],
          description:
            "413 attachment_too_large over 16 MiB; 507 attachment_quota_exceeded over the organisation's attachment_quota_bytes; 507 evidence_storage_full while the evidence storage is at or above its critical watermark.",
        },
      },
      async (req, reply) => {
        const body = req.body instanceof Readable ? req.body : Readable.from([]);
        const declared =
          req.headers['content-length'] !== undefined ? Number(req.headers['content-length']) : undefined;
        return reply
          .code(201)
          .send(await deps.evidence.uploadStream(moduleTokenOf(req), req.headers['content-type'], body, declared));
      },
    );
  });
}
