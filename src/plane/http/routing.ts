import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { errors } from '../errors.js';
import type { PlaneApp } from './typed.js';

const METHODS: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/**
 * 405 versus 501: a path that exists with other methods answers 405 with `Allow`
 * (document 1: `GET /api/v1/nodes/{id}` is 405 because only PATCH is registered there); a path
 * of the API that the router does not have answers 501 `not_implemented` ("405 means the path
 * exists with another method; 501 means no such path"). Outside `/api/v1` it is 404 `not_found`.
 */
export function installMethodRouting(app: PlaneApp): void {
  const known = FindMyWay({ ignoreTrailingSlash: false });
  const seen = new Set<string>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      const key = `${m} ${route.url}`;
      if (seen.has(key) || !METHODS.includes(m as HTTPMethod)) continue;
      seen.add(key);
      known.on(m as HTTPMethod, route.url, () => {});
    }
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    const allow = METHODS.filter((m) => m !== 'HEAD' && m !== 'OPTIONS' && known.find(m, path));
    const inApi = path === '/api/v1' || path.startsWith('/api/v1/');
    const e = allow.length ? errors.methodNotAllowed(allow) : inApi ? errors.notImplemented() : errors.notFound();
    for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
    reply.code(e.status).send(e.body());
  });
}
