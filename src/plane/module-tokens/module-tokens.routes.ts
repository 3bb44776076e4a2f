import type { PlaneApp } from '../http/typed.js';
import type { FastifyReply } from 'fastify';
import { principalOf } from '../http/principal.js';
import { Deleted, IdParams, Page, sec, strictBody, validationCodes } from '../http/list.js';
import type { ModuleTokensService } from './module-tokens.service.js';
import {
  ModuleTokenCreateBody,
  ModuleTokenFieldCodes,
  ModuleTokenListQuery,
  ModuleTokenPatchBody,
  ModuleTokenRow,
  ModuleTokenWithSecret,
} from './module-tokens.schemas.js';

const config = { validationCode: validationCodes(ModuleTokenFieldCodes) };
const tags = ['module-tokens'];

/** A reply that carries a secret is never kept by a cache. */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/** Administrator scope (document 1, module-token endpoints). */
export function moduleTokensRoutes(app: PlaneApp, deps: { moduleTokens: ModuleTokensService }): void {
  const svc = deps.moduleTokens;

  app.get(
    '/api/v1/module-tokens',
    {
      schema: {
        errors: ['crossOrg', 'query_too_long'],
        tags,
        summary:
          'Module tokens of the organisation, without secrets; `q` is a case-insensitive name substring (up to 128)',
        security: sec,
        querystring: ModuleTokenListQuery,
        response: { 200: Page(ModuleTokenRow) },
      },
      config,
    },
    async (req) => svc.list(principalOf(req), req.query),
  );

  app.post(
    '/api/v1/module-tokens',
    {
      schema: {
        errors: ['crossOrg', 'unknown_org', 'bad_name', 'reserved_name', 'alreadyExists'],
        tags,
        summary: 'Create a module token; the reply carries the secret once (Cache-Control: no-store, Pragma: no-cache)',
        security: sec,
        body: ModuleTokenCreateBody,
        response: { 201: ModuleTokenWithSecret },
      },
      preValidation: strictBody(ModuleTokenCreateBody, ModuleTokenFieldCodes),
      config,
    },
    async (req, reply) =>
      noStore(reply)
        .code(201)
        .send(await svc.create(principalOf(req), req.body)),
  );

  app.patch(
    '/api/v1/module-tokens/:id',
    {
      schema: {
        errors: ['notFound', 'bad_name', 'reserved_name', 'alreadyExists'],
        tags,
        summary:
          'Rename, set the rate limit (null = installation default) or enable/disable; disabling stops intake at once',
        security: sec,
        params: IdParams,
        body: ModuleTokenPatchBody,
        response: { 200: ModuleTokenRow },
      },
      preValidation: strictBody(ModuleTokenPatchBody, ModuleTokenFieldCodes),
      config,
    },
    async (req) => svc.update(principalOf(req), req.params.id, req.body),
  );

  app.post(
    '/api/v1/module-tokens/:id/rotate',
    {
      schema: {
        errors: ['notFound'],
        tags,
        summary: 'Issue a new secret; the old one is invalid at once (no overlap)',
        security: sec,
        params: IdParams,
        response: { 200: ModuleTokenWithSecret },
      },
    },
    async (req, reply) => noStore(reply).send(await svc.rotate(principalOf(req), req.params.id)),
  );

  app.delete(
    '/api/v1/module-tokens/:id',
    {
      schema: {
        errors: ['notFound'],
        tags,
        summary: 'Delete a module token; its accepted events remain',
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
      },
    },
    async (req) => svc.delete(principalOf(req), req.params.id),
  );
}
