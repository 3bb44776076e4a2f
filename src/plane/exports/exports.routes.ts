import type { Socket } from 'node:net';
import { Type } from 'typebox';
import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { IdParams, sec, validationCodes } from '../http/list.js';
import type { ExportsService } from './exports.service.js';
import { ExportFieldCodes, ExportKeyReply, ExportQueryString } from './exports.schemas.js';

const tags = ['exports'];

/** The socket's idle bound; a request injected in tests has a socket without one. */
function idleBound(socket: Socket | undefined, ms: number): void {
  if (typeof socket?.setTimeout === 'function') socket.setTimeout(ms);
}

/** Authenticated scope: an export within the camera-rights rule; the export key for anyone signed in. */
export function exportsRoutes(app: PlaneApp, deps: { exports: ExportsService; idleTimeoutMs: number }): void {
  app.get(
    '/api/v1/cameras/:id/export',
    {
      schema: {
        errors: [
          'notFound',
          'bad_range',
          'bad_profile',
          'exportTooLong',
          'viewer_secret_unset',
          'noRecording',
          'exportFailed',
          'nodeUnreachable',
          'nodeAuthFailed',
          'nodeBadReply',
          'urlBuildFailed',
        ],
        tags,
        summary:
          "A recorded range of a camera the caller may see, as the node's MP4 streamed through the plane, or with manifest=1 a zip signed with the plane's export key; audited media.export",
        description:
          "Saved as `<camera name>_<YYYY-MM-DD_HH-MM-SS>_<duration>.mp4` (or .zip) in the Content-Disposition, the start in the zone of the caller's preferences, else the plane's (docs/exports.md).",
        security: sec,
        params: IdParams,
        querystring: ExportQueryString,
        response: {
          200: Type.Unsafe({
            type: 'string',
            format: 'binary',
            description: 'video/mp4, or application/zip with manifest=1',
          }),
        },
      },
      config: { validationCode: validationCodes(ExportFieldCodes) },
    },
    async (req, reply) => {
      // Nothing flows to the client while the node makes the file and (for a zip) the plane spools
      // it: the server's idle bound would cut the socket meanwhile. The service is bounded by its
      // own time-outs (the node's headers, a stalled body), and the idle bound returns after it.
      idleBound(req.raw.socket, 0);
      let out;
      try {
        out = await deps.exports.export(principalOf(req), req.params.id, req.query);
      } finally {
        idleBound(req.raw.socket, deps.idleTimeoutMs);
      }
      reply.raw.once('close', () => {
        out.body.destroy();
        void out.cleanup();
      });
      reply
        .header('content-type', out.contentType)
        .header('content-disposition', out.disposition)
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff');
      if (out.length !== null) reply.header('content-length', String(out.length));
      return reply.send(out.body);
    },
  );

  app.get(
    '/api/v1/export-key',
    {
      schema: {
        errors: [],
        tags,
        summary: "The public half of the plane's Ed25519 export key, which signs every export manifest",
        security: sec,
        response: { 200: ExportKeyReply },
      },
    },
    async () => deps.exports.publicKey(),
  );
}
