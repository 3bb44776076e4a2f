import { Type } from 'typebox';
import { LOG_FILTER_MAX_CHARS, LOG_PAGE_MAX } from './log-ring.js';

/** One ring entry (document 1 "Control-plane log entry"; the node's ring has the same shape). */
export const LogEntrySchema = Type.Object({
  seq: Type.Integer(),
  ts_ms: Type.Integer(),
  level: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]),
  target: Type.String(),
  message: Type.String(),
});

const Level = Type.Union([
  Type.Literal('debug'),
  Type.Literal('info'),
  Type.Literal('warn'),
  Type.Literal('error'),
  Type.Literal('all'),
]);

/** The display filter both rings take: level, exact target, substring q (each filter string at most 128 characters). */
export const LogFilterQuery = {
  level: Type.Optional(Level),
  target: Type.Optional(Type.String({ maxLength: LOG_FILTER_MAX_CHARS })),
  q: Type.Optional(Type.String({ maxLength: LOG_FILTER_MAX_CHARS })),
};

/** A page of the ring: the filter, `after` (seq, default 0) and `limit` (1..1000, default 500). */
export const LogPageQuery = Type.Object({
  ...LogFilterQuery,
  after: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LOG_PAGE_MAX })),
});

/** Which query field's schema failure answers which code (target and q past 128: log_filter_too_long). */
export const LOG_QUERY_CODES: Record<string, string> = {
  target: 'log_filter_too_long',
  q: 'log_filter_too_long',
  level: 'bad_level',
  after: 'bad_after',
  limit: 'bad_limit',
};
