import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { IdParams, ListQuery, Page, sec, strictBody, validationCodes } from '../http/list.js';
import type { OrgsService } from './orgs.service.js';
import type { OrgRemovalService } from './org-removal.service.js';
import { OrgCreateBody, OrgDeleted, OrgFieldCodes, OrgPatchBody, OrgRow } from './orgs.schemas.js';

const config = { validationCode: validationCodes(OrgFieldCodes) };
const tags = ['organisations'];

/** Superadmin scope. */
export function orgsRoutes(app: PlaneApp, deps: { orgs: OrgsService }): void {
  app.get(
    '/api/v1/orgs',
    {
      schema: {
        errors: [],
        tags,
        summary: 'Organisations, by id',
        security: sec,
        querystring: ListQuery,
        response: { 200: Page(OrgRow) },
      },
      config,
    },
    async (req) => deps.orgs.list(req.query),
  );

  app.post(
    '/api/v1/orgs',
    {
      schema: {
        errors: ['alreadyExists'],
        tags,
        summary: 'Create an organisation (limits: null = unlimited)',
        security: sec,
        body: OrgCreateBody,
        response: { 201: OrgRow },
      },
      preValidation: strictBody(OrgCreateBody, OrgFieldCodes),
      config,
    },
    async (req, reply) => reply.code(201).send(await deps.orgs.create(principalOf(req), req.body)),
  );

  app.patch(
    '/api/v1/orgs/:id',
    {
      schema: {
        errors: ['notFound', 'alreadyExists'],
        tags,
        summary: 'Rename an organisation or change its limits',
        security: sec,
        params: IdParams,
        body: OrgPatchBody,
        response: { 200: OrgRow },
      },
      preValidation: strictBody(OrgPatchBody, OrgFieldCodes),
      config,
    },
    async (req) => deps.orgs.update(principalOf(req), req.params.id, req.body),
  );
}

/** Superadmin scope: the deletion, which needs the domains that occupy an organisation. */
export function orgRemovalRoute(app: PlaneApp, deps: { removal: OrgRemovalService }): void {
  app.delete(
    '/api/v1/orgs/:id',
    {
      schema: {
        errors: ['notFound', 'org_not_empty'],
        tags,
        security: sec,
        params: IdParams,
        response: { 200: OrgDeleted },
        summary: 'Delete an organisation without users, cameras or tags (409 org_not_empty otherwise)',
        description:
          'Gone from every read at once. Event history it still holds is removed in the background by the cleanup job ' +
          '`cleanup_job_id` (kind `archive`; GET /api/v1/cleanup-jobs/{id}); its module tokens stop at once.',
      },
    },
    async (req) => deps.removal.delete(principalOf(req), req.params.id),
  );
}
