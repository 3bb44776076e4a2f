import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Stream } from 'node:stream';
import { errors, type BadRequestCode } from '../errors.js';

/**
 * Text PostgreSQL cannot store, and JSON nested deeper than the process can walk, refused as
 * 400 before any rule runs (issue 10, finding 6). PostgreSQL refuses U+0000 in text and jsonb
 * and a lone UTF-16 surrogate in jsonb (it cannot be encoded as UTF-8); JSON.stringify and the
 * validators recurse, so a body nested 10,000 deep ended in a RangeError: each was a 500.
 */

/** Deepest nesting of arrays and objects a JSON body may have (the spec names none). */
export const MAX_JSON_DEPTH = 64;

export type TextProblem = 'nul' | 'lone_surrogate' | 'too_deep';

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE_RE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function textProblem(s: string): TextProblem | null {
  if (s.includes('\u0000')) return 'nul';
  return LONE_SURROGATE_RE.test(s) ? 'lone_surrogate' : null;
}

/**
 * The first problem found in `value` (strings and keys at any depth), with the path of the
 * field that holds it; iterative, so any depth is walked without recursion.
 */
export function findUnsafeText(
  value: unknown,
  maxDepth = MAX_JSON_DEPTH,
  checkText = true,
): { problem: TextProblem; path: string } | null {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 0, path: '' }];
  while (stack.length) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v === 'string') {
      const p = checkText ? textProblem(v) : null;
      if (p) return { problem: p, path };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return { problem: 'too_deep', path };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++)
        stack.push({ v: v[i], depth: depth + 1, path: path ? `${path}/${i}` : String(i) });
      continue;
    }
    for (const k of Object.keys(v)) {
      const p = checkText ? textProblem(k) : null;
      if (p) return { problem: p, path: path ? `${path}/${k}` : k };
      stack.push({ v: (v as Record<string, unknown>)[k], depth: depth + 1, path: path ? `${path}/${k}` : k });
    }
  }
  return null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route checks the text of its body item by item (intake: a bad item fails only
     * itself); the guard then only bounds the body's depth, at `ITEM_CHECKED_MAX_DEPTH`.
     */
    textCheckedPerItem?: boolean;
  }
}

/** Depth bound of a body whose items are checked by the route (walking it must stay safe). */
export const ITEM_CHECKED_MAX_DEPTH = 1024;

function refuse(req: FastifyRequest, found: { problem: TextProblem; path: string }): never {
  if (found.problem === 'too_deep') throw errors.badRequest('json_too_deep');
  // The route's own code for the field where it has one (bad_name for a name), else bad_text.
  const mapped = req.routeOptions.config?.validationCode?.(found.path, 'text');
  throw errors.badRequest(mapped && mapped !== 'bad_request' ? (mapped as BadRequestCode) : 'bad_text');
}

/** Installs the guard on every route: path parameters, query and JSON body. */
export function installTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    for (const part of [req.params, req.query]) {
      const found = findUnsafeText(part, 4);
      if (found) refuse(req, found);
    }
    // Only a parsed JSON document (an upload's body is its byte stream).
    if (req.body === undefined || Buffer.isBuffer(req.body) || req.body instanceof Stream) return;
    if (req.routeOptions.config?.textCheckedPerItem) {
      const found = findUnsafeText(req.body, ITEM_CHECKED_MAX_DEPTH, false);
      if (found) refuse(req, found);
      return;
    }
    const found = findUnsafeText(req.body);
    if (found) refuse(req, found);
  });
}
