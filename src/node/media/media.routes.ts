import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientAddressOf, viewerOf, type MediaRouteConfig } from '../auth/access.hook.js';
import { isStreamPath } from '../auth/authorize.js';
import { errors } from '../errors.js';
import type { NodeFastify } from '../typed.js';
import { embedPage, EMBED_CSP, PLAYER_SCRIPT_PATH } from './embed.js';
import type { MediaService, Viewer } from './media.service.js';
import type { MediaKind } from './viewer/viewer.service.js';
import type { Thumbnails } from './playback/thumbnail.js';
import { recordedRanges } from './playback/recorded.js';

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';
// Number parts as the URLs of document 4 spell them; anything else matches no route (404).
const FROM = ':from(^[0-9]{1,11}$)';
const SECS = ':secs(^[0-9]{1,6}$)';

export interface MediaRoutesDeps {
  media: MediaService;
  thumbnails: Thumbnails;
}

type StreamParams = { stream: string };
type RangeParams = StreamParams & { from: string; secs: string };
type SegmentParams = StreamParams & { segment: string };
type RecordedParams = StreamParams & { start: string };
type ThumbParams = StreamParams & { at: string };

/** The route config the access hook reads: which media action the authorizer judges the request as. */
const as = (media: MediaKind): { config: MediaRouteConfig } => ({ config: { media } });

function viewer(req: FastifyRequest): Viewer {
  return { ...viewerOf(req), ip: clientAddressOf(req), userAgent: String(req.headers['user-agent'] ?? '') };
}

/** Media is fetched by players on other origins (the plane's pages); the URL carries the credential. */
function crossOrigin(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
}

function playlist(reply: FastifyReply, text: string): string {
  reply.header('content-type', PLAYLIST_TYPE).header('cache-control', 'no-cache');
  return text;
}

async function sendFile(reply: FastifyReply, file: string, type: string, cache: string): Promise<FastifyReply> {
  const st = await stat(file).catch(() => null);
  if (!st?.isFile()) throw errors.notFound();
  reply.header('content-type', type).header('content-length', String(st.size)).header('cache-control', cache);
  return reply.send(createReadStream(file));
}

/**
 * The media surface, outside the management gate: one route per file kind under `/{stream}/`.
 * The access hook has already asked the authorizer (licence, unknown stream, viewer admission)
 * by the time a handler runs; what is left is the HTTP shape of what the media service answers.
 */
export function mediaRoutes(app: NodeFastify, deps: MediaRoutesDeps): void {
  const { media, thumbnails } = deps;
  const hlsScript = createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js');

  app.get(PLAYER_SCRIPT_PATH, async (_req, reply) => {
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=86400');
    return reply.send(createReadStream(hlsScript));
  });

  // The test player is public: it holds no data, the video behind it is what is protected.
  app.get<{ Params: StreamParams }>('/:stream/embed.html', async (req, reply) => {
    if (!isStreamPath(req.params.stream)) throw errors.notFound();
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', EMBED_CSP)
      .header('referrer-policy', 'no-referrer');
    return embedPage(req.params.stream);
  });

  app.get<{ Params: StreamParams }, MediaRouteConfig>('/:stream/index.m3u8', as('live'), async (req, reply) => {
    crossOrigin(reply);
    return playlist(reply, await media.livePlaylist(req.params.stream, 'entry', viewer(req)));
  });

  app.get<{ Params: StreamParams }, MediaRouteConfig>('/:stream/live.m3u8', as('live'), async (req, reply) => {
    crossOrigin(reply);
    return playlist(reply, await media.livePlaylist(req.params.stream, 'live', viewer(req)));
  });

  app.get<{ Params: SegmentParams }, MediaRouteConfig>(
    '/:stream/:segment(^r[0-9]+-[0-9]+\\.ts$)',
    as('live'),
    async (req, reply) => {
      crossOrigin(reply);
      return sendFile(
        reply,
        media.liveSegment(req.params.stream, req.params.segment, viewer(req)),
        'video/mp2t',
        'private, max-age=60',
      );
    },
  );

  app.get<{ Params: RangeParams }, MediaRouteConfig>(
    `/:stream/index-${FROM}-${SECS}.m3u8`,
    as('playback'),
    async (req, reply) => {
      crossOrigin(reply);
      const { stream, from, secs } = req.params;
      return playlist(reply, await media.playbackPlaylist(stream, Number(from), Number(secs), viewer(req)));
    },
  );

  app.get<{ Params: RecordedParams }, MediaRouteConfig>(
    '/:stream/dvr-:start(^[0-9]{10,16}$).ts',
    as('playback'),
    async (req, reply) => {
      crossOrigin(reply);
      return sendFile(
        reply,
        media.recordedSegment(req.params.stream, Number(req.params.start), viewer(req)),
        'video/mp2t',
        'private, max-age=86400',
      );
    },
  );

  // What is recorded in a window, as ranges (issue 23, docs/node-media.md "Thumbnails"): the
  // console's timeline draws a week from it; admitted as playback, like the playlist of the window.
  app.get<{ Params: RangeParams }, MediaRouteConfig>(
    `/:stream/recorded-${FROM}-${SECS}.json`,
    as('playback'),
    async (req, reply) => {
      crossOrigin(reply);
      const { stream, from, secs } = req.params;
      reply.header('cache-control', 'no-cache');
      return { ranges: recordedRanges(thumbnails.store(stream), Number(from), Number(secs)) };
    },
  );

  // A frame of the recording at a moment (issue 23, docs/node-media.md "Thumbnails"): admitted as
  // playback, like the recorded segments it is read from; the viewer token names the stream, not a
  // range, so any moment of the stream's recording is open to it, as `dvr-<start>.ts` is.
  app.get<{ Params: ThumbParams }, MediaRouteConfig>(
    '/:stream/thumb-:at(^[0-9]{1,11}$).jpg',
    as('playback'),
    async (req, reply) => {
      crossOrigin(reply);
      const jpeg = await thumbnails.jpeg(req.params.stream, Number(req.params.at));
      reply.header('content-type', 'image/jpeg').header('cache-control', 'private, max-age=86400');
      return jpeg;
    },
  );

  app.get<{ Params: StreamParams }, MediaRouteConfig>('/:stream/preview.jpg', as('preview'), async (req, reply) => {
    crossOrigin(reply);
    const jpeg = await media.preview(req.params.stream);
    reply.header('content-type', 'image/jpeg').header('cache-control', 'no-cache');
    return jpeg;
  });

  app.get<{ Params: RangeParams }, MediaRouteConfig>(
    `/:stream/export-${FROM}-${SECS}.mp4`,
    as('export'),
    async (req, reply) => {
      crossOrigin(reply);
      const { stream } = req.params;
      const from = Number(req.params.from);
      const secs = Number(req.params.secs);
      const out = await media.export(stream, from, secs);
      reply.raw.once('close', () => {
        void out.cleanup();
      });
      reply.header(
        'content-disposition',
        `attachment; filename="${stream.replace(/[^A-Za-z0-9_.-]/g, '_')}-${from}-${secs}.mp4"`,
      );
      return sendFile(reply, out.file, 'video/mp4', 'private, no-store');
    },
  );
}
