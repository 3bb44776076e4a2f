import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errors } from '../errors.js';
import { isConnectionError, type DbHealth } from '../db/health.js';
import { isPoolWaitTimeout } from '../db/heartbeat.js';
import type { PlaneApp } from './typed.js';

/**
 * Renders every failure once, as the spec's envelope. Nothing of a stack, SQL text or file
 * path reaches a body: unknown failures are logged and answered as `internal_error`.
 */
export function installErrorHandler(app: PlaneApp, health: DbHealth): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(err, req, health);
    if (apiError.status >= 500 && apiError.code !== 'db_unavailable') {
      req.log.error({ err: { message: err.message, code: err.code, stack: err.stack } }, 'request failed');
    }
    for (const [k, v] of Object.entries(apiError.headers)) reply.header(k, v);
    reply.code(apiError.status).send(apiError.body());
  });
}

function toApiError(err: FastifyError, req: FastifyRequest, health: DbHealth): ApiError {
  if (err instanceof ApiError) return err;
  if (err.validation) {
    const v = err.validation[0];
    const field =
      String(v?.instancePath ?? '').replace(/^\//, '') ||
      String((v?.params as { missingProperty?: unknown } | undefined)?.missingProperty ?? '');
    const mapped = req.routeOptions.config?.validationCode?.(field, String(v?.keyword ?? ''));
    // Unmapped: the framework's own text, as document 1 says for GET /audit/{id}.
    return mapped ? new ApiError(400, mapped) : new ApiError(400, err.message);
  }
  // The reply's own encoding failed (document 2 names it for the card): nothing of it was sent.
  if ((err as { serialization?: unknown }).serialization !== undefined) return errors.responseEncodeFailed();
  // Every pooled connection stayed busy past the wait bound. While the database answers that is
  // not an outage (issue 25): 503 db_busy with retry_after, and the database is not marked down.
  // While it is down (the heartbeat saw it), connections stuck on a lost server are why the
  // pool was full: that stays db_unavailable (issue 10).
  if (isPoolWaitTimeout(err)) return health.isUp ? errors.dbBusy() : errors.dbUnavailable();
  if (isConnectionError(err)) {
    health.markDown(err);
    return errors.dbUnavailable();
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.badJson();
  }
  if (err instanceof SyntaxError) return errors.badJson();
  // A database constraint the service did not foresee: a conflict with existing data, not a crash.
  const pgCode = (err as { code?: string }).code;
  if (pgCode === '23505') return errors.alreadyExists();
  // A row still referenced elsewhere (a delete the service did not foresee): a conflict, not a crash.
  if (pgCode === '23503') return errors.stillReferenced();
  // A full disk (evidence bytes, a settings file): say so, rather than an anonymous internal error.
  if (pgCode === 'ENOSPC' || pgCode === 'EDQUOT') return errors.storageFull();
  return errors.internal();
}
