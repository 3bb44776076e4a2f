import { Type } from 'typebox';
import { LogEntrySchema, LogFilterQuery, LogPageQuery } from '../../common/log-schemas.js';

export { LogPageQuery };

/** GET /api/v1/logs/plane: the page envelope of document 1. */
export const PlaneLogPage = Type.Object({
  head_seq: Type.Integer(),
  capacity: Type.Integer(),
  capture_level: Type.String(),
  capture_source: Type.String(),
  capture_environment_override: Type.Boolean(),
  entries: Type.Array(LogEntrySchema),
});

/** The live tail takes the filter and a resume point; `after` and `limit` are accepted and ignored. */
export const PlaneLogStreamQuery = Type.Object({
  ...LogFilterQuery,
  last_event_id: Type.Optional(Type.String()),
  after: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
