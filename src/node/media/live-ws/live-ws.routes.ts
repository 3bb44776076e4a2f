import websocket from '@fastify/websocket';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { clientAddressOf, viewerOf, type MediaRouteConfig } from '../../auth/access.hook.js';
import { errors } from '../../errors.js';
import type { NodeFastify } from '../../typed.js';
import type { Viewer } from '../media.service.js';
import type { LiveWs } from './live-ws.service.js';

export interface LiveWsRoutesDeps {
  live: LiveWs;
}

/** Viewers send nothing; a message larger than this ends the connection (ws answers 1009). */
const MAX_CLIENT_MESSAGE_BYTES = 1024;

/**
 * A viewer that has not answered a ping within this long is gone (a half-open TCP connection, a
 * sleeping laptop): its socket is ended and its session with it, rather than when TCP gives up.
 */
const HEARTBEAT_MS = 30_000;

const Params = Type.Object({ stream: Type.String() });
/** The credential rides in the URL as for index.m3u8: a viewer token or media grant, or a session ticket. */
const Query = Type.Object({ token: Type.Optional(Type.String()), t: Type.Optional(Type.String()) });

function viewer(req: FastifyRequest): Viewer {
  return { ...viewerOf(req), ip: clientAddressOf(req), userAgent: String(req.headers['user-agent'] ?? '') };
}

/**
 * The WebSocket plugin, registered before the access hook: its own onRequest hook must see an
 * upgrade request first, so that a refused upgrade's socket is closed once the refusal is
 * written (a hook that throws first would leave it open, and the node's stop waiting for it).
 */
export async function registerWebSocket(app: NodeFastify): Promise<void> {
  await app.register(websocket, {
    options: { maxPayload: MAX_CLIENT_MESSAGE_BYTES, perMessageDeflate: false },
  });
}

/**
 * `GET /{stream}/live.ws`: the stream as fragmented MP4 over a WebSocket (document 4 section 14).
 * The upgrade request passes the same access hook as index.m3u8 (its action `live_ws` asks for a
 * credential allowing protocol `ws`), and a stream that does not serve is refused, so every
 * refusal is an HTTP answer before the upgrade. Any origin may connect: the URL carries the
 * credential, and the plane's console is on another origin.
 */
export function liveWsRoutes(app: NodeFastify, deps: LiveWsRoutesDeps): void {
  const { live } = deps;

  app.route<{ Params: { stream: string }; Querystring: { token?: string; t?: string } }, MediaRouteConfig>({
    method: 'GET',
    url: '/:stream/live.ws',
    config: { media: 'live_ws' },
    schema: { params: Params, querystring: Query },
    preHandler: async (req) => {
      await live.ready(req.params.stream);
    },
    // A plain GET of the WebSocket URL: there is nothing to answer but that it is not an HTTP resource.
    handler: async () => {
      throw errors.notFound();
    },
    wsHandler: (socket, req) => {
      const leave = live.join(req.params.stream, socket, viewer(req));
      let answered = true;
      socket.on('pong', () => {
        answered = true;
      });
      const heartbeat = setInterval(() => {
        if (!answered) {
          socket.terminate();
          return;
        }
        answered = false;
        socket.ping();
      }, HEARTBEAT_MS);
      heartbeat.unref();
      socket.once('close', () => {
        clearInterval(heartbeat);
        leave();
      });
      // Fragments are binary; anything a viewer sends is ignored.
      socket.on('message', () => undefined);
    },
  });
}
