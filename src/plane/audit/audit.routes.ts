import type { PlaneApp } from '../http/typed.js';
import { errors, type ErrorName } from '../errors.js';
import { principalOf } from '../http/principal.js';
import { sec } from '../http/list.js';
import type { AuditService } from './audit.service.js';
import {
  AuditActionsReply,
  AuditExportQuery,
  AuditGetParams,
  AuditGetQuery,
  AuditListQuery,
  AuditListReply,
  AuditRow,
  AuditStreamQuery,
} from './audit.schemas.js';

// The filter's checks (audit.service.ts), shared by the list, the export and the stream.
const AUDIT_FILTER = [
  'crossOrg',
  'bad_audit_cursor',
  'bad_audit_range',
  'bad_audit_action',
  'bad_audit_object_type',
  'audit_search_must_be_2_to_128_chars',
  'audit_search_requires_explicit_range',
  'audit_search_range_max_31_days',
] as const satisfies readonly ErrorName[];

const limitCode = (field: string) => (field === 'limit' ? 'bad_limit' : undefined);

/** Authenticated scope; role `user` is refused with the operator message before any work. */
export function auditRoutes(app: PlaneApp, deps: { audit: AuditService }): void {
  app.addHook('onRequest', async (req) => {
    if (principalOf(req).role === 'user') throw errors.auditNotVisible();
  });

  app.get(
    '/api/v1/audit',
    {
      schema: {
        errors: ['auditNotVisible', ...AUDIT_FILTER],
        tags: ['audit'],
        summary: 'Audit records, newest first',
        security: sec,
        querystring: AuditListQuery,
        response: { 200: AuditListReply },
      },
      config: { validationCode: limitCode },
    },
    async (req, reply) => {
      // The page arrives already serialised (the service writes the JSON text); Fastify sends a
      // string as it is, so the typed reply body (the schema's object) does not describe it.
      const json: unknown = await deps.audit.listJson(principalOf(req), req.query);
      return reply.type('application/json; charset=utf-8').send(json as never);
    },
  );

  app.get(
    '/api/v1/audit/actions',
    {
      schema: {
        errors: ['auditNotVisible'],
        tags: ['audit'],
        summary: 'The closed action vocabulary',
        security: sec,
        response: { 200: AuditActionsReply },
      },
    },
    async () => deps.audit.actions(),
  );

  app.get(
    '/api/v1/audit/export.csv',
    {
      schema: {
        tags: ['audit'],
        summary: 'CSV export of 500 records',
        security: sec,
        querystring: AuditExportQuery,
        errors: ['auditNotVisible', ...AUDIT_FILTER],
      },
    },
    async (req, reply) => {
      const csv = await deps.audit.exportCsv(principalOf(req), { ...req.query, limit: undefined });
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename=audit.csv')
        .send(csv);
    },
  );

  app.get(
    '/api/v1/audit/stream',
    {
      schema: {
        errors: ['auditNotVisible', ...AUDIT_FILTER, 'liveStreamCapacity'],
        tags: ['audit'],
        summary: 'Live audit records (SSE, cursor g:<number>)',
        security: sec,
        querystring: AuditStreamQuery,
      },
    },
    async (req, reply) => {
      await deps.audit.stream(req, reply, principalOf(req), req.query);
    },
  );

  app.get(
    '/api/v1/audit/:id',
    {
      schema: {
        errors: ['auditNotVisible', 'notFound', 'crossOrg'],
        tags: ['audit'],
        summary: 'One record with params',
        security: sec,
        params: AuditGetParams,
        querystring: AuditGetQuery,
        response: { 200: AuditRow },
      },
    },
    async (req) => deps.audit.get(principalOf(req), req.params.id, req.query.occurred_at, req.query.org),
  );
}
