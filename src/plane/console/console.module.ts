import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { systemClock, type Clock } from '../../common/clock.js';
import { CONSOLE_PATHS } from '../../common/console-pages.js';
import { errors } from '../errors.js';
import type { PlaneApp } from '../http/typed.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { ConsolePolicy, type NodeOrigins } from './console.policy.js';

/**
 * The web console (document 4 §12): the single-page application that `npm run build` writes to
 * dist/console, served at `/`. Its pages are client routes: each answers index.html, which loads
 * the bundle from /assets/ (file names carry a content hash: cached for a year). The console
 * speaks only the public API, so it needs no rights of its own. The policy lets the players
 * fetch HLS from the registered nodes (other origins) and feed hls.js's blob: media and worker.
 * The paths are the console's own table of pages (src/common/console-pages.ts), so a page added
 * to the console is an address the plane answers.
 *
 * The build writes a brotli (.br) and a gzip (.gz) copy beside each text file (web/vite.config.ts):
 * a file is sent as the copy the request's Accept-Encoding prefers (br, then gzip, else the file
 * itself, also when a copy is missing), with Content-Encoding and `Vary: Accept-Encoding` so that
 * a cache keeps one answer per encoding (issue 22: 846 KB of JavaScript before the first frame).
 */

/**
 * An asset's name as Vite writes it (`<name>-<hash>.<ext>`, one folder): anything else, `..`
 * in any encoding, a folder or an empty name included, is a 404 before the file system is asked
 * (issue 25, item 10: `/assets/` and `/assets/%2e%2e/...` reached the static server, whose
 * refusal answered 500 and logged an error, and a missing asset answered 405).
 */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
/**
 * The files that make the console installable (issue 22), each at its own address at the root:
 * the web app manifest, and the service worker, whose scope is the folder it is served from, so
 * only /sw.js may control every page. Neither carries a content hash: the browser asks again
 * (no-cache) and a new build is seen at once; the worker checks itself on every navigation too.
 * The icons (web/public/icons/) are renamed only by hand: a day of cache.
 */
const ROOT_FILES = ['manifest.webmanifest', 'sw.js'] as const;
const ICON_CACHE = 'public, max-age=86400';
/** A compressed copy is another form of its file, not an address of its own. */
const COMPRESSED_COPY = /\.(br|gz)$/;
const isFile = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

export function createConsole(deps: { root?: string; nodes?: NodeOrigins; clock?: Clock } = {}): DomainParts {
  const root = deps.root ?? fileURLToPath(new URL('../../../console/', import.meta.url));
  const assets = join(root, 'assets');
  const icons = join(root, 'icons');
  const policy = new ConsolePolicy(deps.nodes, deps.clock ?? systemClock);
  return {
    routes: {
      public: (app: PlaneApp) => {
        if (!existsSync(assets)) return; // the console is not built (npm run build builds it)
        app.register(async (scope) => {
          scope.addHook('onSend', async (_req, reply) => {
            // no-referrer: a console page's address (an event, a camera) is not told to a node or any link's site.
            reply
              .header('content-security-policy', await policy.current())
              .header('x-content-type-options', 'nosniff')
              .header('referrer-policy', 'no-referrer');
          });
          // Only reply.sendFile: the assets route below decides what is a file to serve.
          await scope.register(fastifyStatic, {
            root,
            serve: false,
            index: false,
            decorateReply: true,
            cacheControl: false,
            preCompressed: true,
          });
          scope.get('/assets/*', { schema: { hide: true } }, async (req, reply) => {
            const name = (req.params as { '*': string })['*'];
            if (!ASSET_NAME.test(name) || COMPRESSED_COPY.test(name) || !(await isFile(join(assets, name))))
              throw errors.notFound();
            return reply
              .header('cache-control', 'public, max-age=31536000, immutable')
              .header('vary', 'accept-encoding')
              .sendFile(name, assets);
          });
          for (const name of ROOT_FILES) {
            scope.get(`/${name}`, { schema: { hide: true } }, async (_req, reply) => {
              if (!(await isFile(join(root, name)))) throw errors.notFound();
              return reply.header('cache-control', 'no-cache').header('vary', 'accept-encoding').sendFile(name, root);
            });
          }
          scope.get('/icons/*', { schema: { hide: true } }, async (req, reply) => {
            const name = (req.params as { '*': string })['*'];
            if (!ASSET_NAME.test(name) || COMPRESSED_COPY.test(name) || !(await isFile(join(icons, name))))
              throw errors.notFound();
            return reply.header('cache-control', ICON_CACHE).header('vary', 'accept-encoding').sendFile(name, icons);
          });
          for (const url of CONSOLE_PATHS) {
            scope.get(url, { schema: { hide: true } }, (_req, reply) =>
              reply.header('cache-control', 'no-cache').header('vary', 'accept-encoding').sendFile('index.html', root),
            );
          }
        });
      },
    },
    jobs: noJobs,
  };
}
