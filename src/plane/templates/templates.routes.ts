import type { PlaneApp } from '../http/typed.js';
import type { ErrorName } from '../errors.js';
import { principalOf } from '../http/principal.js';
import { Deleted, IdParams, Page, sec, strictBody, validationCodes } from '../http/list.js';
import type { TemplatesService } from './templates.service.js';
import {
  MatchesQuery,
  MatchesReply,
  TemplateCreateBody,
  TemplateFieldCodes,
  TemplateListQuery,
  TemplatePatchBody,
  TemplateRow,
  ValidateBody,
  ValidateReply,
} from './templates.schemas.js';

const config = { validationCode: validationCodes(TemplateFieldCodes) };
const tags = ['templates'];
// The codes of a template document's checks (template.doc.ts), answered wherever a document is read.
const DOC_ERRORS = [
  'bad_doc',
  'template_doc_too_large',
  'template_title_invalid',
  'detector_match_required',
  'detector_match_too_long',
  'list_fields_too_many',
  'list_field_bad_key',
  'list_field_bad_source',
  'list_field_bad_metadata',
  'attachment_fields_too_many',
  'attachment_field_bad_source',
  'attachment_field_bad_metadata',
  'detail_layout_too_many',
  'detail_layout_block_too_large',
  'coalesce_sources_too_many',
  'coalesce_source_invalid',
  'bad_interval_timeout',
  'search_field_bad_source',
] as const satisfies readonly ErrorName[];

/** Administrator scope (document 2, Templates). */
export function templatesRoutes(app: PlaneApp, deps: { templates: TemplatesService }): void {
  app.get(
    '/api/v1/templates',
    {
      schema: {
        tags,
        security: sec,
        querystring: TemplateListQuery,
        response: { 200: Page(TemplateRow) },
        summary: "System templates plus those of the caller's organisation (superadmin: all, or `org`)",
        errors: ['crossOrg'],
      },
      config,
    },
    async (req) => deps.templates.list(principalOf(req), req.query),
  );

  app.post(
    '/api/v1/templates',
    {
      schema: {
        tags,
        security: sec,
        body: TemplateCreateBody,
        response: { 201: TemplateRow },
        summary: 'Create an organisation template',
        errors: ['bad_name', 'unknown_org', ...DOC_ERRORS, 'crossOrg', 'max_event_templates_reached', 'alreadyExists'],
      },
      preValidation: strictBody(TemplateCreateBody, TemplateFieldCodes),
      config,
    },
    async (req, reply) => reply.code(201).send(await deps.templates.create(principalOf(req), req.body)),
  );

  app.post(
    '/api/v1/templates/validate',
    {
      schema: {
        tags,
        security: sec,
        body: ValidateBody,
        response: { 200: ValidateReply },
        summary: 'Check a document as saving would (no quota, audit or cache change)',
        errors: DOC_ERRORS,
      },
      preValidation: strictBody(ValidateBody, TemplateFieldCodes),
      config,
    },
    async (req) => deps.templates.validate(req.body),
  );

  app.get(
    '/api/v1/templates/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: TemplateRow },
        summary: 'One template (a system template: any administrator)',
        errors: ['notFound'],
      },
    },
    async (req) => deps.templates.get(principalOf(req), req.params.id),
  );

  app.patch(
    '/api/v1/templates/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        body: TemplatePatchBody,
        response: { 200: TemplateRow },
        summary:
          'Change a template (version increases); a system template: a superadmin overrides only title and ignore_event',
        errors: [
          'bad_name',
          ...DOC_ERRORS,
          'system_template_fields_readonly',
          'system_template_override_required',
          'system_template_title_invalid',
          'system_template_ignore_invalid',
          'systemTemplateSuperadminOnly',
          'notFound',
          'alreadyExists',
          'analyticsTemplateInUse',
        ],
      },
      preValidation: strictBody(TemplatePatchBody, TemplateFieldCodes),
      config,
    },
    async (req) => deps.templates.update(principalOf(req), req.params.id, req.body),
  );

  app.delete(
    '/api/v1/templates/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
        summary: 'Delete an organisation template',
        errors: ['notFound', 'systemTemplateReadonly', 'analyticsTemplateInUse'],
      },
    },
    async (req) => deps.templates.delete(principalOf(req), req.params.id),
  );

  app.get(
    '/api/v1/templates/:id/matches',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        querystring: MatchesQuery,
        response: { 200: MatchesReply },
        summary: "Detector ids of the last 7 days that the template's mask matches (does not affect intake)",
        errors: ['notFound', 'crossOrg'],
      },
      config,
    },
    async (req) => deps.templates.matches(principalOf(req), req.params.id, req.query),
  );
}
