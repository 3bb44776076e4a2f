import type { NodeContext, NodeFastify } from '../context.js';
import { errors } from '../errors.js';
import { clientAddressOf } from '../gate/gate.hook.js';
import { STREAM_PATH } from '../grants/grants.service.js';
import { embedPage } from './embed.js';
import { ViewerAuth, licenseRefusal } from './access.js';

/**
 * The media surface outside the management gate: `/{stream}/embed.html` (public test player)
 * and `/{stream}/index.m3u8`. The playlist route enforces the licence and viewer authorization;
 * serving the media itself is the media pipeline's (a later part), so an authorized request for
 * a stream the pipeline does not serve answers 503.
 */
export function mediaRoutes(app: NodeFastify, ctx: NodeContext): void {
  const viewers = new ViewerAuth(ctx.clock, ctx.grants);

  app.get('/*', async (req, reply) => {
    const path = req.url.split('?')[0];
    const m = /^\/(.+)\/(embed\.html|index\.m3u8)$/.exec(path);
    let stream: string;
    try { stream = m ? decodeURIComponent(m[1]) : ''; } catch { stream = ''; }
    if (!m || stream.length > 256 || !STREAM_PATH.test(stream)) throw errors.notFound();

    if (m[2] === 'embed.html') {
      reply.header('content-type', 'text/html; charset=utf-8');
      reply.header('content-security-policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; media-src 'self' blob:");
      reply.header('referrer-policy', 'no-referrer');
      return embedPage(stream);
    }

    const refusal = licenseRefusal(ctx.license.status());
    if (refusal) throw refusal;
    if (!ctx.config.config.streams.some((s) => s.name === stream) && !stream.startsWith('vod/')) throw errors.streamNotFound(stream);
    const token = (req.query as Record<string, unknown>).token;
    await viewers.check(ctx.config.config.auth_backend, {
      stream, protocol: 'hls', address: clientAddressOf(req), token: typeof token === 'string' ? token : undefined,
    });
    throw errors.streamNotReady(stream);
  });
}
