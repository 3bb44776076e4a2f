import { Type } from 'typebox';
import {
  LOG_FILTER_MAX_CHARS,
  LOG_PAGE_DEFAULT,
  LOG_PAGE_MAX,
  RING_LEVELS,
  type LogRing,
  type RingLevel,
} from '../../common/log-ring.js';
import { NodeLogPage } from '../../common/node-api.js';
import { errors } from '../errors.js';
import type { NodeFastify } from '../typed.js';

// The node's validator does not coerce: the query arrives as text and is read here.
const NodeLogQuery = Type.Object({
  level: Type.Optional(Type.String()),
  target: Type.Optional(Type.String()),
  q: Type.Optional(Type.String()),
  after: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

function intIn(text: string | undefined, name: string, min: number, max: number, dflt: number): number {
  if (text === undefined) return dflt;
  if (!/^\d{1,15}$/.test(text) || Number(text) < min || Number(text) > max)
    throw errors.invalidRequest(`${name} must be an integer in ${min}..${max}`);
  return Number(text);
}

/**
 * GET /api/v1/logs (document 4 section 9): the node's ring with the query of the plane's log
 * (level, target, q, after, limit), `{head_seq, capacity, entries}` newest first. A read-tier
 * route of the gate: GET, so the read token may call it.
 */
export function logsRoutes(app: NodeFastify, deps: { ring: LogRing }): void {
  app.get('/api/v1/logs', { schema: { querystring: NodeLogQuery, response: { 200: NodeLogPage } } }, async (req) => {
    const q = req.query;
    const level = q.level ?? 'all';
    if (level !== 'all' && !(RING_LEVELS as readonly string[]).includes(level)) {
      throw errors.invalidRequest('level must be one of debug, info, warn, error, all');
    }
    for (const f of [q.target, q.q])
      if (f !== undefined && [...f].length > LOG_FILTER_MAX_CHARS) throw errors.logFilterTooLong();
    const after = intIn(q.after, 'after', 0, Number.MAX_SAFE_INTEGER, 0);
    const limit = intIn(q.limit, 'limit', 1, LOG_PAGE_MAX, LOG_PAGE_DEFAULT);
    const entries = deps.ring.page({ level: level as RingLevel | 'all', target: q.target, q: q.q }, after, limit);
    return { head_seq: deps.ring.head, capacity: deps.ring.capacity, entries };
  });
}
