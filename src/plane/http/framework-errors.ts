import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';

/**
 * The router's own refusals (a path parameter past its length limit, a URL that does not
 * decode), answered as the spec's envelope with the headers every reply carries. Fastify wrote them straight to the socket before, as
 * `{statusCode, code, message}` echoing the path (issue 10, finding 8).
 */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const e = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? errors.uriTooLong() : errors.badRequest('bad_request');
  // This reply has the root's context only: the onSend hooks of app.ts do not run for it.
  reply
    .code(e.status)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(e.body());
}
