import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext, NodeFastify } from '../context.js';
import { errors } from '../errors.js';
import { clientAddressOf } from '../gate/gate.hook.js';
import { STREAM_PATH } from '../grants/grants.service.js';
import type { TicketClaims } from '../grants/session-keys.js';
import { resolveInside } from '../../common/resolve-inside.js';
import { embedPage, EMBED_CSP, PLAYER_SCRIPT_PATH } from './embed.js';
import { SEGMENT_URI } from './hls/live-playlist.js';
import { livePlaylist, masterPlaylist, playbackPlaylist } from './hls/playlists.js';
import { EXPORT_MAX_SECS, exportMp4 } from './playback/export.js';
import { licenseRefusal, type MediaKind } from './viewer/viewer.service.js';
import { join } from 'node:path';

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';
const PLAYBACK_MAX_SECS = 24 * 3600;
/** How long the first playlist request of a starting or parked stream waits for a playable segment. */
const FIRST_SEGMENT_WAIT_MS = 15_000;

type Route =
  | { file: 'embed' } | { file: 'entry' } | { file: 'live' } | { file: 'segment'; name: string }
  | { file: 'playback'; from: number; secs: number } | { file: 'recorded'; start: number }
  | { file: 'preview' } | { file: 'export'; from: number; secs: number };

/** The file part of a media URL; every other name is 404. */
function routeOf(file: string): Route | null {
  if (file === 'embed.html') return { file: 'embed' };
  if (file === 'index.m3u8') return { file: 'entry' };
  if (file === 'live.m3u8') return { file: 'live' };
  if (file === 'preview.jpg') return { file: 'preview' };
  if (SEGMENT_URI.test(file)) return { file: 'segment', name: file };
  let m = /^index-([0-9]{1,11})-([0-9]{1,6})\.m3u8$/.exec(file);
  if (m) return { file: 'playback', from: +m[1], secs: +m[2] };
  m = /^export-([0-9]{1,11})-([0-9]{1,6})\.mp4$/.exec(file);
  if (m) return { file: 'export', from: +m[1], secs: +m[2] };
  m = /^dvr-([0-9]{10,16})\.ts$/.exec(file);
  if (m) return { file: 'recorded', start: +m[1] };
  return null;
}

const KIND: Record<Exclude<Route['file'], 'embed'>, MediaKind> = {
  entry: 'live', live: 'live', segment: 'live', playback: 'playback', recorded: 'playback', preview: 'preview', export: 'export',
};

/**
 * The media surface, outside the management gate: live HLS, recorded ranges, preview, export and
 * the public test player. Order of refusals: licence (403 with its message), unknown stream
 * (404), viewer authorization (403), not serving yet (503).
 */
export function mediaRoutes(app: NodeFastify, ctx: NodeContext): void {
  const { pipeline, dvr, viewers, sessions, previews } = ctx.media;
  const hlsScript = createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js');

  app.get(PLAYER_SCRIPT_PATH, async (_req, reply) => {
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=86400');
    return reply.send(createReadStream(hlsScript));
  });

  app.get('/*', async (req, reply) => {
    const path = req.url.split('?')[0];
    const m = /^\/(.+)\/([^/]+)$/.exec(path);
    let stream: string;
    try { stream = m ? decodeURIComponent(m[1]) : ''; } catch { stream = ''; }
    const route = m ? routeOf(m[2]) : null;
    if (!route || stream.length > 256 || !STREAM_PATH.test(stream)) throw errors.notFound();

    if (route.file === 'embed') {
      reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', EMBED_CSP).header('referrer-policy', 'no-referrer');
      return embedPage(stream);
    }
    const refusal = licenseRefusal(ctx.license.status());
    if (refusal) throw refusal;
    if (!ctx.config.config.streams.some((s) => s.name === stream) && !stream.startsWith('vod/')) throw errors.streamNotFound(stream);
    const q = req.query as Record<string, unknown>;
    const claims = await viewers.admit(ctx.config.config.auth_backend, {
      stream, kind: KIND[route.file], address: clientAddressOf(req),
      token: typeof q.token === 'string' ? q.token : undefined,
      // A credential in the URL opens a new session even when a ticket rides along.
      ticket: typeof q.t === 'string' && typeof q.token !== 'string' ? q.t : undefined,
    });
    // Media is fetched by players on other origins (the plane's pages); the URL carries the credential.
    reply.header('access-control-allow-origin', '*');
    const client = { ip: clientAddressOf(req), userAgent: String(req.headers['user-agent'] ?? '') };
    const session = (c: TicketClaims | null): void => { if (c) sessions.touch(c, client); };
    const ticketFor = async (c: TicketClaims | null): Promise<string | null> => {
      if (!c) return null;
      session(c);
      return typeof q.t === 'string' && typeof q.token !== 'string' ? q.t : viewers.ticket(c);
    };

    switch (route.file) {
      case 'entry':
      case 'live': {
        const ingest = await pipeline.demand(stream, FIRST_SEGMENT_WAIT_MS);
        if (!ingest) {
          const st = ctx.streams.get(stream);
          throw errors.streamNotReady(stream, st?.state, pipeline.status(stream)?.reason ?? pipeline.status(stream)?.last_error);
        }
        const ticket = await ticketFor(claims);
        reply.header('content-type', PLAYLIST_TYPE).header('cache-control', 'no-cache');
        if (route.file === 'entry') return masterPlaylist(ingest.status(), ticket);
        const text = await readFile(join(ingest.dir, 'index.m3u8'), 'utf8').catch(() => null);
        if (text === null) throw errors.streamNotReady(stream, ctx.streams.get(stream)?.state);
        return livePlaylist(text, ticket);
      }
      case 'segment': {
        session(claims);
        const ingest = pipeline.ingest(stream);
        if (!ingest) throw errors.notFound();
        const file = resolveInside(ingest.dir, route.name);
        return sendFile(reply, file, 'video/mp2t', 'private, max-age=60');
      }
      case 'playback': {
        if (route.secs < 1 || route.secs > PLAYBACK_MAX_SECS) throw errors.rangeInvalid(`duration must be 1 to ${PLAYBACK_MAX_SECS} seconds`);
        const store = dvr.store(stream);
        const segs = store?.range(route.from * 1000, (route.from + route.secs) * 1000) ?? [];
        if (segs.length === 0) throw errors.noRecording(stream);
        const ticket = await ticketFor(claims);
        reply.header('content-type', PLAYLIST_TYPE).header('cache-control', 'no-cache');
        return playbackPlaylist(segs, ticket);
      }
      case 'recorded': {
        session(claims);
        const store = dvr.store(stream);
        const seg = store?.find(route.start);
        if (!store || !seg) throw errors.notFound();
        return sendFile(reply, store.path(seg), 'video/mp2t', 'private, max-age=86400');
      }
      case 'preview': {
        const live = pipeline.ingest(stream)?.live;
        const store = dvr.store(stream);
        const lastRec = store?.list()[store.count - 1];
        const source = live && live.length > 0 ? live[live.length - 1].path : lastRec && store ? store.path(lastRec) : null;
        if (!source) throw errors.streamNotReady(stream, ctx.streams.get(stream)?.state);
        const jpeg = await previews.jpeg(stream, source).catch(() => { throw errors.streamNotReady(stream, ctx.streams.get(stream)?.state); });
        reply.header('content-type', 'image/jpeg').header('cache-control', 'no-cache');
        return jpeg;
      }
      case 'export':
        return exportRange(ctx, req, reply, stream, route.from, route.secs);
    }
  });
}

async function sendFile(reply: FastifyReply, file: string, type: string, cache: string): Promise<FastifyReply> {
  const st = await stat(file).catch(() => null);
  if (!st?.isFile()) throw errors.notFound();
  reply.header('content-type', type).header('content-length', String(st.size)).header('cache-control', cache);
  return reply.send(createReadStream(file));
}

async function exportRange(ctx: NodeContext, req: FastifyRequest, reply: FastifyReply, stream: string, from: number, secs: number): Promise<FastifyReply> {
  if (secs < 1 || secs > EXPORT_MAX_SECS) throw errors.rangeInvalid(`duration must be 1 to ${EXPORT_MAX_SECS} seconds`);
  const store = ctx.media.dvr.store(stream);
  const segs = store?.range(from * 1000, (from + secs) * 1000) ?? [];
  if (!store || segs.length === 0) throw errors.noRecording(stream);
  let out: Awaited<ReturnType<typeof exportMp4>>;
  try {
    out = await exportMp4(ctx.media.ffmpeg, ctx.media.tmpDir, segs.map((s) => ({ ...s, path: store.path(s) })), from * 1000, (from + secs) * 1000);
  } catch (err) {
    req.log.error({ err, stream }, 'export failed');
    throw errors.exportFailed();
  }
  reply.raw.once('close', () => { void out.cleanup(); });
  reply.header('content-disposition', `attachment; filename="${stream.replace(/[^A-Za-z0-9_.-]/g, '_')}-${from}-${secs}.mp4"`);
  return sendFile(reply, out.file, 'video/mp4', 'private, no-store');
}
