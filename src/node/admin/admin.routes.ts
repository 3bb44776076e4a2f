import type { FastifyReply } from 'fastify';
import type { NodeFastify } from '../typed.js';
import { ADMIN_CSS, ADMIN_HTML, ADMIN_JS } from './assets.js';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'";

function send(reply: FastifyReply, type: string, body: string): string {
  reply.header('content-type', type);
  reply.header('content-security-policy', CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('cache-control', 'no-cache');
  return body;
}

/** Public by design: the page must load to show the login form, and it holds no data. */
export function adminRoutes(app: NodeFastify): void {
  app.get('/', async (_req, reply) => reply.redirect('/admin', 302));
  app.get('/admin', async (_req, reply) => send(reply, 'text/html; charset=utf-8', ADMIN_HTML));
  app.get('/admin/', async (_req, reply) => send(reply, 'text/html; charset=utf-8', ADMIN_HTML));
  app.get('/admin/app.js', async (_req, reply) => send(reply, 'text/javascript; charset=utf-8', ADMIN_JS));
  app.get('/admin/app.css', async (_req, reply) => send(reply, 'text/css; charset=utf-8', ADMIN_CSS));
}
