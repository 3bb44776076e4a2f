import type { PlaneApp } from '../http/typed.js';
import { Type } from 'typebox';
import { principalOf } from '../http/principal.js';
import { IdParams, Uuid, sec, strictBody, validationCodes } from '../http/list.js';
import type { GrantsService } from './grants.service.js';

const GrantsReply = Type.Object({ camera_ids: Type.Array(Uuid), tag_ids: Type.Array(Uuid) });
const GrantsBody = Type.Object(
  {
    camera_ids: Type.Array(Type.String(), { maxItems: 10_000 }),
    tag_ids: Type.Array(Type.String(), { maxItems: 1_000 }),
  },
  { additionalProperties: false },
);
const GrantCodes = { camera_ids: 'unknown_camera', tag_ids: 'unknown_tag' };
const config = { validationCode: validationCodes(GrantCodes) };
const tags = ['camera rights'];

/** Administrator scope. */
export function grantsRoutes(app: PlaneApp, deps: { grants: GrantsService }): void {
  app.get(
    '/api/v1/users/:id/grants',
    {
      schema: {
        errors: ['notFound'],
        tags,
        summary: 'Cameras granted to a user, directly and through tags',
        security: sec,
        params: IdParams,
        response: { 200: GrantsReply },
      },
    },
    async (req) => deps.grants.get(principalOf(req), req.params.id),
  );

  app.put(
    '/api/v1/users/:id/grants',
    {
      schema: {
        errors: ['notFound', 'unknown_camera', 'unknown_tag'],
        tags,
        summary: "Replace both lists; ids must belong to the user's organisation (400 unknown_camera, unknown_tag)",
        security: sec,
        params: IdParams,
        body: GrantsBody,
        response: { 200: GrantsReply },
      },
      preValidation: strictBody(GrantsBody, GrantCodes),
      config,
    },
    async (req) => deps.grants.put(principalOf(req), req.params.id, req.body),
  );
}
