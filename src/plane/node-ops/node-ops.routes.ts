import type { PlaneApp } from '../http/typed.js';
import type { ErrorName } from '../errors.js';
import { principalOf } from '../http/principal.js';
import { IdParams, sec, strictBody, validationCodes } from '../http/list.js';
import type { NodeOpsService } from './node-ops.service.js';
import {
  ChangeReply,
  GlobalsBody,
  GlobalsCodes,
  LoggingBody,
  LoggingCodes,
  LoggingReply,
  NodeConfigReply,
  NodeLicenseReply,
  NodeLogsCodes,
  NodeLogsQuery,
  NodeLogsReply,
  NodeSessionsReply,
  NodeHistoryReply,
  RollbackBody,
  RollbackCodes,
  RollbackReply,
} from './node-ops.schemas.js';

const tags = ['nodes'];
// Every per-node route reaches its node (document 4 §9, docs/node-ops.md).
const NODE_ERRORS = [
  'notFound',
  'nodeUnreachable',
  'nodeAuthFailed',
  'nodeBadReply',
  'urlBuildFailed',
] as const satisfies readonly ErrorName[];

/**
 * Superadmin scope: the per-node routes of document 4 §9, each forwarded to the node. There is
 * still no GET of `/api/v1/nodes/{id}` itself: it answers 405 (document 1).
 */
export function nodeOpsRoutes(app: PlaneApp, deps: { ops: NodeOpsService }): void {
  const { ops } = deps;
  app.get(
    '/api/v1/nodes/:id/logs',
    {
      schema: {
        errors: NODE_ERRORS,
        tags,
        summary: "The node's log ring (its GET /api/v1/logs, same query).",
        security: sec,
        params: IdParams,
        querystring: NodeLogsQuery,
        response: { 200: NodeLogsReply },
      },
      config: { validationCode: validationCodes(NodeLogsCodes) },
    },
    async (req) => ops.logs(req.params.id, req.query),
  );

  app.get(
    '/api/v1/nodes/:id/sessions',
    {
      schema: {
        errors: NODE_ERRORS,
        tags,
        summary: "The node's live viewers, as it reports them.",
        security: sec,
        params: IdParams,
        response: { 200: NodeSessionsReply },
      },
    },
    async (req) => ops.sessions(req.params.id),
  );

  app.get(
    '/api/v1/nodes/:id/config',
    {
      schema: {
        errors: NODE_ERRORS,
        tags,
        summary: "The node's configuration (holds its secrets; audited as node.config_read).",
        security: sec,
        params: IdParams,
        response: { 200: NodeConfigReply },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      return ops.config(principalOf(req), req.params.id);
    },
  );

  app.patch(
    '/api/v1/nodes/:id/config/globals',
    {
      schema: {
        errors: [...NODE_ERRORS, 'node_rejected', 'node_write_token_required'],
        tags,
        summary:
          "Change the node's global directives (audited as node.update); 400 node_rejected when the node refuses them.",
        security: sec,
        params: IdParams,
        body: GlobalsBody,
        response: { 200: ChangeReply },
      },
      preValidation: strictBody(GlobalsBody, GlobalsCodes),
      config: { validationCode: validationCodes(GlobalsCodes) },
    },
    async (req) => ops.patchGlobals(principalOf(req), req.params.id, req.body),
  );

  app.get(
    '/api/v1/nodes/:id/logging',
    {
      schema: {
        errors: NODE_ERRORS,
        tags,
        summary: "The node's log_level.",
        security: sec,
        params: IdParams,
        response: { 200: LoggingReply },
      },
    },
    async (req) => ops.logging(req.params.id),
  );

  app.patch(
    '/api/v1/nodes/:id/logging',
    {
      schema: {
        errors: [...NODE_ERRORS, 'node_rejected'],
        tags,
        summary: "Set the node's log_level (through its config/globals; audited as node.update).",
        security: sec,
        params: IdParams,
        body: LoggingBody,
        response: { 200: LoggingReply },
      },
      preValidation: strictBody(LoggingBody, LoggingCodes),
      config: { validationCode: validationCodes(LoggingCodes) },
    },
    async (req) => ops.setLogging(principalOf(req), req.params.id, req.body.level),
  );

  app.get(
    '/api/v1/nodes/:id/config/history',
    {
      schema: {
        errors: NODE_ERRORS,
        tags,
        summary: "The node's configuration versions (its GET /api/v1/config/history).",
        security: sec,
        params: IdParams,
        response: { 200: NodeHistoryReply },
      },
    },
    async (req) => ops.history(req.params.id),
  );

  app.post(
    '/api/v1/nodes/:id/config/rollback',
    {
      schema: {
        errors: [...NODE_ERRORS, 'node_rejected'],
        tags,
        summary:
          'Return the node to a recorded version (its POST /api/v1/config/rollback; audited as node.update); 400 node_rejected for an epoch it does not know.',
        security: sec,
        params: IdParams,
        body: RollbackBody,
        response: { 200: RollbackReply },
      },
      preValidation: strictBody(RollbackBody, RollbackCodes),
      config: { validationCode: validationCodes(RollbackCodes) },
    },
    async (req) => ops.rollback(principalOf(req), req.params.id, req.body.epoch),
  );

  app.get(
    '/api/v1/nodes/:id/license',
    {
      schema: {
        errors: NODE_ERRORS,
        tags,
        summary: "The node's licence (its GET /api/v1/license).",
        security: sec,
        params: IdParams,
        response: { 200: NodeLicenseReply },
      },
    },
    async (req) => ops.license(req.params.id),
  );
}
