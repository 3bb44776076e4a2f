import type { ErrorName } from '../errors.js';
import type { TSchema } from 'typebox';
import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { Deleted, IdParams, ListQuery, Page, sec, strictBody, validationCodes } from '../http/list.js';
import type { CamerasService } from './cameras.service.js';
import type { ViewingService } from './viewing.service.js';
import type { CameraProbe } from './probe.service.js';
import { NodeProbeReply, NodeSnapshotReply } from '../../common/node-api.js';
import {
  CameraCreateBody,
  CameraFieldCodes,
  CameraPatchBody,
  CameraRow,
  PlayBody,
  PlayFieldCodes,
  PlayReply,
  ProbeBody,
  ProbeFieldCodes,
} from './cameras.schemas.js';

const config = { validationCode: validationCodes(CameraFieldCodes) };
const playBody = strictBody(PlayBody, PlayFieldCodes);
const tags = ['cameras'];

/** Authenticated scope: reads, within the camera-rights rule (an operator sees its granted cameras). */
export function camerasReadRoutes(app: PlaneApp, deps: { cameras: CamerasService; viewing: ViewingService }): void {
  app.get(
    '/api/v1/cameras',
    {
      schema: {
        errors: [],
        tags,
        summary: "Cameras the caller may see: granted ones for an operator, the organisation's for an administrator",
        security: sec,
        querystring: ListQuery,
        response: { 200: Page(CameraRow) },
      },
      config,
    },
    async (req) => deps.cameras.list(principalOf(req), req.query),
  );

  app.get(
    '/api/v1/cameras/:id',
    {
      schema: {
        errors: ['notFound'],
        tags,
        summary: 'One camera the caller may see (404 otherwise)',
        security: sec,
        params: IdParams,
        response: { 200: CameraRow },
      },
    },
    async (req) => deps.cameras.get(principalOf(req), req.params.id),
  );

  app.post(
    '/api/v1/cameras/:id/play',
    {
      schema: {
        errors: ['notFound', 'bad_profile', 'bad_range', 'viewer_secret_unset'],
        tags,
        summary:
          "A viewer token for the camera's node (live, or a recorded range for playback); audited view.live / view.playback",
        security: sec,
        params: IdParams,
        body: PlayBody,
        response: { 200: PlayReply },
      },
      // Both fields have defaults: no body at all is a live view of the main profile.
      preValidation: async (req) => {
        req.body ??= {};
        await playBody(req);
      },
      config: { validationCode: validationCodes(PlayFieldCodes) },
    },
    async (req) => deps.viewing.play(principalOf(req), req.params.id, req.body ?? {}),
  );
}

const PROBE_ERRORS: readonly ErrorName[] = [
  'unknown_node',
  'bad_source_url',
  'nodeUnreachable',
  'nodeAuthFailed',
  'nodeBadReply',
  'urlBuildFailed',
];

/** The probe's and the snapshot's route options: one body and one set of refusals, as both have the node open a source. */
function probeOptions<R extends TSchema>(summary: string, reply: R) {
  return {
    schema: {
      errors: PROBE_ERRORS,
      tags,
      summary,
      security: sec,
      body: ProbeBody,
      response: { 200: reply },
    },
    preValidation: strictBody(ProbeBody, ProbeFieldCodes),
    config: { validationCode: validationCodes(ProbeFieldCodes) },
  };
}

/** Administrator scope: writes, and the probe of a source before it is saved. */
export function camerasAdminRoutes(app: PlaneApp, deps: { cameras: CamerasService; probe: CameraProbe }): void {
  app.post(
    '/api/v1/cameras/probe',
    probeOptions(
      'Test a source: the node opens it once (10 s) and answers its video and audio, or why not in words (ok false)',
      NodeProbeReply,
    ),
    async (req) => deps.probe.probe(req.body),
  );

  app.post(
    '/api/v1/cameras/probe/snapshot',
    probeOptions(
      "A snapshot of a source before it is saved: one frame (a base64 JPEG at most 640 pixels wide) the node reads under the probe's rules and 10 s, or why not in words (ok false)",
      NodeSnapshotReply,
    ),
    async (req) => deps.probe.snapshot(req.body),
  );

  app.post(
    '/api/v1/cameras',
    {
      schema: {
        errors: [
          'crossOrg',
          'unknown_org',
          'unknown_node',
          'unknown_tag',
          'bad_source_url',
          'max_cameras_reached',
          'alreadyExists',
        ],
        tags,
        summary: 'Add a camera on a node (status unavailable until its node serves it)',
        security: sec,
        body: CameraCreateBody,
        response: { 201: CameraRow },
      },
      preValidation: strictBody(CameraCreateBody, CameraFieldCodes),
      config,
    },
    async (req, reply) => reply.code(201).send(await deps.cameras.create(principalOf(req), req.body)),
  );

  app.patch(
    '/api/v1/cameras/:id',
    {
      schema: {
        errors: ['notFound', 'unknown_node', 'unknown_tag', 'bad_source_url'],
        tags,
        summary: 'Change a camera; tag_ids replaces its tags; a source sent back masked (***) is kept as stored',
        security: sec,
        params: IdParams,
        body: CameraPatchBody,
        response: { 200: CameraRow },
      },
      preValidation: strictBody(CameraPatchBody, CameraFieldCodes),
      config,
    },
    async (req) => deps.cameras.update(principalOf(req), req.params.id, req.body),
  );

  app.delete(
    '/api/v1/cameras/:id',
    {
      schema: {
        errors: ['notFound'],
        tags,
        summary: 'Delete a camera with its tags and grants',
        security: sec,
        params: IdParams,
        response: { 200: Deleted },
      },
    },
    async (req) => deps.cameras.delete(principalOf(req), req.params.id),
  );
}
