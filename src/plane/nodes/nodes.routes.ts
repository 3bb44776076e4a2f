import type { PlaneApp } from '../http/typed.js';
import { Type } from 'typebox';
import { principalOf } from '../http/principal.js';
import { Deleted, IdParams, Page, sec, strictBody, validationCodes } from '../http/list.js';
import type { NodesService } from './nodes.service.js';
import { NodeCreateBody, NodeFieldCodes, NodePatchBody, NodeRow } from './nodes.schemas.js';

const config = { validationCode: validationCodes(NodeFieldCodes) };
const tags = ['nodes'];
// Nodes belong to the installation, not to an organisation: no `org` narrowing here.
const NodeListQuery = Type.Object(
  {
    after: Type.Optional(Type.String({ format: 'uuid' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 500 })),
  },
  { additionalProperties: false },
);

/**
 * Superadmin scope. No GET of one node: document 1 has `GET /api/v1/nodes/{id}` answer 405
 * (a single node is read from the list), which the method router does by itself.
 */
export function nodesRoutes(app: PlaneApp, deps: { nodes: NodesService }): void {
  app.get(
    '/api/v1/nodes',
    {
      schema: {
        errors: [],
        tags,
        summary: 'Streaming nodes, by id (secrets only as *_configured flags)',
        security: sec,
        querystring: NodeListQuery,
        response: { 200: Page(NodeRow) },
      },
      config,
    },
    async (req) => deps.nodes.list(req.query),
  );

  app.post(
    '/api/v1/nodes',
    {
      schema: {
        errors: ['bad_url', 'alreadyExists'],
        tags,
        summary: 'Register a node: api_token and auth_backend_secret are write-only and stored encrypted',
        security: sec,
        body: NodeCreateBody,
        response: { 201: NodeRow },
      },
      preValidation: strictBody(NodeCreateBody, NodeFieldCodes),
      config,
    },
    async (req, reply) => reply.code(201).send(await deps.nodes.create(principalOf(req), req.body)),
  );

  app.patch(
    '/api/v1/nodes/:id',
    {
      schema: {
        errors: ['notFound', 'bad_url', 'alreadyExists'],
        tags,
        summary: 'Change a node; a secret sent replaces the stored one, auth_backend_secret null clears it',
        security: sec,
        params: IdParams,
        body: NodePatchBody,
        response: { 200: NodeRow },
      },
      preValidation: strictBody(NodePatchBody, NodeFieldCodes),
      config,
    },
    async (req) => deps.nodes.update(principalOf(req), req.params.id, req.body),
  );

  app.delete(
    '/api/v1/nodes/:id',
    {
      schema: {
        errors: ['notFound', 'node_in_use'],
        tags,
        summary: 'Remove a node without cameras (409 node_in_use otherwise)',
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
      },
    },
    async (req) => deps.nodes.delete(principalOf(req), req.params.id),
  );
}
