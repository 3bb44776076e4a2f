import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { Deleted, IdParams, ListQuery, Page, sec, strictBody, validationCodes } from '../http/list.js';
import type { TagsService } from './tags.service.js';
import { TagCreateBody, TagFieldCodes, TagPatchBody, TagRow } from './tags.schemas.js';

const config = { validationCode: validationCodes(TagFieldCodes) };
const tags = ['tags'];

/** Administrator scope. */
export function tagsRoutes(app: PlaneApp, deps: { tags: TagsService }): void {
  app.get(
    '/api/v1/tags',
    {
      schema: {
        errors: ['crossOrg'],
        tags,
        summary: "Tags of the caller's organisation (superadmin: all, or `org`)",
        security: sec,
        querystring: ListQuery,
        response: { 200: Page(TagRow) },
      },
      config,
    },
    async (req) => deps.tags.list(principalOf(req), req.query),
  );

  app.post(
    '/api/v1/tags',
    {
      schema: {
        errors: ['crossOrg', 'unknown_org', 'max_tags_reached', 'alreadyExists'],
        tags,
        summary: 'Create a tag (409 already_exists for a name taken in the organisation)',
        security: sec,
        body: TagCreateBody,
        response: { 201: TagRow },
      },
      preValidation: strictBody(TagCreateBody, TagFieldCodes),
      config,
    },
    async (req, reply) => reply.code(201).send(await deps.tags.create(principalOf(req), req.body)),
  );

  app.patch(
    '/api/v1/tags/:id',
    {
      schema: {
        errors: ['notFound', 'alreadyExists'],
        tags,
        summary: 'Rename a tag',
        security: sec,
        params: IdParams,
        body: TagPatchBody,
        response: { 200: TagRow },
      },
      preValidation: strictBody(TagPatchBody, TagFieldCodes),
      config,
    },
    async (req) => deps.tags.update(principalOf(req), req.params.id, req.body),
  );

  app.delete(
    '/api/v1/tags/:id',
    {
      schema: {
        errors: ['notFound'],
        tags,
        summary: 'Delete a tag: cameras lose the label, users the rights it gave',
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
      },
    },
    async (req) => deps.tags.delete(principalOf(req), req.params.id),
  );
}
