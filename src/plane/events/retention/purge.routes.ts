import type { PlaneApp } from '../../http/typed.js';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../../http/principal.js';
import type { ErrorName } from '../../errors.js';
import { sec, strictBody, validationCodes } from '../../http/list.js';
import type { PurgeService } from './purge.service.js';
import { CleanupJob, JobParams, PreviewReply, PurgeBody, PurgeFieldCodes } from './purge.schemas.js';

const tags = ['purge'];
// The selection's checks (purge.service.ts), the same for the preview and the purge.
const SELECTION_ERRORS = [
  'event_purge_selection_too_large',
  'bad_time_range',
  'bad_detector',
  'bad_category',
  'bad_severity_min',
  'bad_event_ids',
  'bad_as_of',
] as const satisfies readonly ErrorName[];

/** Superadmin scope: purge of event history and its cleanup jobs. */
export function purgeRoutes(app: PlaneApp, deps: { purge: PurgeService }): void {
  const strict = strictBody(PurgeBody, PurgeFieldCodes);
  // Every field has a default, so no body at all is the empty selection spec `{}`.
  const preValidation = async (req: FastifyRequest) => {
    if (req.body === undefined || req.body === null) req.body = {};
    await strict(req);
  };
  const body = { preValidation, config: { validationCode: validationCodes(PurgeFieldCodes) } };

  app.post(
    '/api/v1/events/purge/preview',
    {
      schema: {
        tags,
        security: sec,
        body: PurgeBody,
        response: { 200: PreviewReply },
        summary: 'What a purge would delete; send `spec` (with its as_of) unchanged to the purge',
        errors: SELECTION_ERRORS,
      },
      ...body,
    },
    async (req) => deps.purge.preview(req.body),
  );

  app.post(
    '/api/v1/events/purge',
    {
      schema: {
        tags,
        security: sec,
        body: PurgeBody,
        response: { 202: CleanupJob },
        summary:
          'Queue a purge (audited event.delete); the cleanup job deletes rows and evidence bytes in the background',
        errors: [...SELECTION_ERRORS, 'eventPurgeEmpty'],
      },
      ...body,
    },
    async (req, reply) => reply.code(202).send(await deps.purge.purge(principalOf(req), req.body)),
  );

  app.get(
    '/api/v1/cleanup-jobs/:id',
    {
      schema: {
        tags,
        security: sec,
        params: JobParams,
        response: { 200: CleanupJob },
        summary: 'A cleanup job; done when finished_at is set, a failed run has last_error (404 not_found)',
        errors: ['notFound'],
      },
    },
    async (req) => deps.purge.job(req.params.id),
  );
}
