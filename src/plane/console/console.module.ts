import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { PlaneApp } from '../http/typed.js';
import { noJobs, type DomainParts } from '../http/module.js';

/**
 * The web console (document 4 §12): the single-page application that `npm run build` writes to
 * dist/console, served at `/`. Its pages are client routes: each answers index.html, which loads
 * the bundle from /assets/ (file names carry a content hash: cached for a year). The console
 * speaks only the public API, so it needs no rights of its own. The policy lets the players
 * fetch HLS from the nodes (another origin) and feed hls.js's blob: media and worker.
 */
export const CONSOLE_PAGES = ['/', '/login', '/live', '/feed', '/events/:id', '/cameras/:id', '/dashboards', '/dashboards/:id', '/reports', '/admin/tokens', '/admin/settings', '/admin/audit', '/admin/monitor', '/admin/people', '/admin/usage', '/admin/templates', '/admin/nodes/:id', '/admin/orgs'] as const;

const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' blob: data:",
  "media-src 'self' blob: http: https:", "connect-src 'self' http: https:", "worker-src 'self' blob:",
  "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'",
].join('; ');

export function createConsole(deps: { root?: string } = {}): DomainParts {
  const root = deps.root ?? fileURLToPath(new URL('../../../console/', import.meta.url));
  return {
    routes: {
      public: (app: PlaneApp) => {
        if (!existsSync(join(root, 'assets'))) return; // the console is not built (npm run build builds it)
        app.register(async (scope) => {
          scope.addHook('onSend', async (_req, reply) => { reply.header('content-security-policy', CSP).header('x-content-type-options', 'nosniff'); });
          await scope.register(fastifyStatic, {
            root: join(root, 'assets'), prefix: '/assets/', index: false, wildcard: true, decorateReply: true, cacheControl: false,
            setHeaders: (res) => res.setHeader('cache-control', 'public, max-age=31536000, immutable'),
          });
          for (const url of CONSOLE_PAGES) {
            scope.get(url, { schema: { hide: true } }, (_req, reply) => reply.header('cache-control', 'no-cache').sendFile('index.html', root));
          }
        });
      },
    },
    jobs: noJobs,
  };
}
