import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { Deleted, IdParams, ListQuery, Page, sec, strictBody, validationCodes } from '../http/list.js';
import type { UsersService } from './users.service.js';
import { UserCreateBody, UserFieldCodes, UserPatchBody, UserRow } from './users.schemas.js';

const config = { validationCode: validationCodes(UserFieldCodes) };
const tags = ['users'];

/** Administrator scope: list, create, delete. */
export function usersAdminRoutes(app: PlaneApp, deps: { users: UsersService }): void {
  app.get(
    '/api/v1/users',
    {
      schema: {
        errors: ['crossOrg'],
        tags,
        summary: "Users of the caller's organisation (superadmin: all, or `org`)",
        security: sec,
        querystring: ListQuery,
        response: { 200: Page(UserRow) },
      },
      config,
    },
    async (req) => deps.users.list(principalOf(req), req.query),
  );

  app.post(
    '/api/v1/users',
    {
      schema: {
        errors: ['forbidden', 'crossOrg', 'unknown_org', 'max_users_reached', 'alreadyExists'],
        tags,
        summary: "Create a user (org_id defaults to the caller's; only a superadmin creates a superadmin)",
        security: sec,
        body: UserCreateBody,
        response: { 201: UserRow },
      },
      preValidation: strictBody(UserCreateBody, UserFieldCodes),
      config,
    },
    async (req, reply) => reply.code(201).send(await deps.users.create(principalOf(req), req.body)),
  );

  app.delete(
    '/api/v1/users/:id',
    {
      schema: {
        errors: ['notFound', 'forbidden'],
        tags,
        summary: 'Delete a user; its sessions and streams end at once',
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
      },
    },
    async (req) => deps.users.delete(principalOf(req), req.params.id),
  );
}

/** Authenticated scope: an operator may PATCH its own name and password; the service holds the rules. */
export function usersSelfRoutes(app: PlaneApp, deps: { users: UsersService }): void {
  app.patch(
    '/api/v1/users/:id',
    {
      schema: {
        errors: ['notFound', 'forbidden', 'crossOrg', 'unknown_org', 'max_users_reached', 'alreadyExists'],
        tags,
        summary: 'Change a user. Own record: name and password only. Disabling, demoting or moving ends its sessions.',
        security: sec,
        params: IdParams,
        body: UserPatchBody,
        response: { 200: UserRow },
      },
      preValidation: strictBody(UserPatchBody, UserFieldCodes),
      config,
    },
    async (req) => deps.users.update(principalOf(req), req.params.id, req.body),
  );
}
