import { ApiError } from '../common/api-error.js';

/**
 * Every error the node answers with, rendered once by the error handler in app.ts as the
 * envelope of document 3: `error`, optionally `reason`. Refusals never carry
 * `WWW-Authenticate`: browsers would pop a basic-auth dialog over the panel.
 */
export const errors = {
  unauthorized: () => new ApiError(401, 'unauthorized'),
  forbidden: (reason: ForbiddenReason) => new ApiError(403, 'forbidden', { reason }),
  invalidRequest: (message: string) => new ApiError(400, 'invalid_request', { message }),
  notFound: () => new ApiError(404, 'not_found'),
  loginDisabled: () => new ApiError(404, 'not_found', { message: 'no administrator password is configured' }),
  payloadTooLarge: (limit: number) => new ApiError(413, 'payload_too_large', { limit_bytes: limit }),
  tooManyRequests: (retryAfterSecs: number) =>
    new ApiError(429, 'too_many_requests', { retry_after: retryAfterSecs }, { 'retry-after': String(retryAfterSecs) }),
  adminAuthDisabled: () => new ApiError(409, 'admin_auth_disabled'),
  mediaAuthDisabled: () => new ApiError(409, 'media_auth_disabled'),
  clusterManagedKeys: () =>
    new ApiError(409, 'cluster_managed_keys', {
      message: 'this node is in a cluster: change session_keys { secret } on every node instead',
    }),
  invalidConfig: (problems: string[]) => new ApiError(400, 'invalid_config', { problems }),
  epochNotFound: (epoch: number) => new ApiError(404, 'epoch_not_found', { epoch }),
  streamNotFound: (name: string) => new ApiError(404, 'stream_not_found', { stream: name }),
  mediaForbidden: (reason: MediaReason, message: string) => new ApiError(403, 'forbidden', { reason, message }),
  streamNotReady: (name: string, state?: string, reason?: string | null) =>
    new ApiError(
      503,
      'stream_not_ready',
      {
        stream: name,
        message: 'the media pipeline is not serving this stream yet',
        ...(state ? { state } : {}),
        ...(reason ? { reason } : {}),
      },
      { 'retry-after': '2' },
    ),
  noRecording: (name: string) =>
    new ApiError(404, 'no_recording', { stream: name, message: 'nothing is recorded in this range' }),
  rangeInvalid: (message: string) => new ApiError(400, 'invalid_range', { message }),
  exportFailed: () => new ApiError(500, 'export_failed'),
  internal: () => new ApiError(500, 'internal'),
  // GET /api/v1/logs: a target or q filter past 128 characters (the plane log's code, document 1)
  logFilterTooLong: () => new ApiError(400, 'log_filter_too_long'),
};

export type ForbiddenReason =
  'read_token_cannot_read_config' | 'read_token_cannot_write' | 'api_token_is_not_a_media_credential';

export type MediaReason =
  'license_does_not_cover_build' | 'license_expired' | 'license_invalid' | 'viewer_token_invalid';
