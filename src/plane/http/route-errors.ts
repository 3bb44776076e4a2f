import type { FastifySchema } from 'fastify';
import { describeError, type ErrorName } from '../errors.js';

/**
 * Each route lists the error codes it may answer (issue 21 §3), and the OpenAPI text is made
 * from that list here, once: per-status responses whose `error` is an enum of the codes, and the
 * operation description's closing "Errors: ..." sentence. The rules (docs/api-errors.md):
 * - a route's schema lists what its own handler and services throw, as catalogue names;
 * - the scope it sits in adds what the scope's hook throws (401, 403, 503 db_unavailable);
 * - its validation mapping (`config.validationCode`) adds the 400 codes its fields map to;
 * - what any operation may answer (internal_error, uri_too_long, ...) is said once, in the
 *   document's info (`everyOperation`), not repeated per operation.
 */
declare module 'fastify' {
  interface FastifySchema {
    /** The codes this route's handler may answer besides its scope's and its validation's (docs/api-errors.md). */
    errors?: readonly ErrorName[];
  }
}

/** Answered by any operation, whatever it declares: the framework's and the error handler's own. */
export const everyOperation: readonly ErrorName[] = [
  'badJson',
  'bad_text',
  'json_too_deep',
  'methodNotAllowed',
  'payloadTooLarge',
  'uriTooLong',
  'unsupportedMediaType',
  'internal',
  'responseEncodeFailed',
];

/** The codes each scope's hook answers before a route's handler runs (src/plane/routes.ts). */
export const scopeErrors = {
  database: ['dbUnavailable', 'dbBusy'],
  session: ['unauthorized', 'dbUnavailable', 'dbBusy'],
  role: ['forbidden'],
  moduleToken: ['unauthorized', 'dbUnavailable', 'dbBusy'],
} as const satisfies Record<string, readonly ErrorName[]>;

// Route options (the object Fastify passes to onRoute and @fastify/swagger keeps) to the codes
// of the scopes around the route; a WeakMap, since a scope's hook may not write a shared schema.
const byScope = new WeakMap<object, ErrorName[]>();

interface HookHost {
  addHook(name: 'onRoute', hook: (route: object) => void): unknown;
}

/** A scope's hook says which codes it answers: every route registered inside it is documented with them. */
export function scopeAnswers(scope: HookHost, names: readonly ErrorName[]): void {
  scope.addHook('onRoute', (route) => {
    byScope.set(route, [...(byScope.get(route) ?? []), ...names]);
  });
}

// Per server: the documented routes whose schema has no `errors` list (a test holds it empty).
const undeclared = new WeakMap<object, string[]>();

/** Records, on `app`, each documented route registered without an `errors` list. */
export function trackErrorLists(app: HookHost): void {
  const missing: string[] = [];
  undeclared.set(app, missing);
  app.addHook('onRoute', (route) => {
    const r = route as { method: string | string[]; url: string; schema?: FastifySchema };
    if (r.schema && !r.schema.hide && !r.schema.errors) missing.push(`${String(r.method)} ${r.url}`);
  });
}

/** The documented routes of `app` that list no error codes. */
export function routesWithoutErrorList(app: object): readonly string[] {
  return undeclared.get(app) ?? [];
}

type Json = Record<string, unknown>;
type ValidationCode = (field: string, keyword: string) => string | undefined;

/** The 400 codes a route's validation mapping gives its fields: each top-level field, an unknown one, a non-object body. */
function validationCodesOf(schema: FastifySchema, code: ValidationCode | undefined): string[] {
  if (!code) return [];
  const out: string[] = [];
  for (const part of [schema.params, schema.querystring, schema.body] as Array<Json | undefined>) {
    for (const s of part ? [part, ...((part.anyOf ?? part.oneOf ?? []) as Json[])] : []) {
      for (const field of Object.keys((s.properties ?? {}) as Json)) out.push(code(field, 'type') ?? '');
      if (s.additionalProperties === false) out.push(code('', 'additionalProperties') ?? '');
    }
  }
  if (schema.body) out.push(code('', 'type') ?? '');
  return out.filter(Boolean);
}

/** Status and codes, each code once, ordered by status and then as listed. */
function byStatus(codes: Array<{ status: number; code: string }>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const { status, code } of [...codes].sort((a, b) => a.status - b.status)) {
    const list = out.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    out.set(status, list);
  }
  return out;
}

/** The codes an operation may answer: its scope's, its validation's and its own list. */
function routeErrors(
  schema: FastifySchema,
  route: { config?: { validationCode?: ValidationCode } },
): Map<number, string[]> {
  const named = [...(byScope.get(route) ?? []), ...(schema.errors ?? [])].map(describeError);
  const validation = validationCodesOf(schema, route.config?.validationCode).map((code) => ({ status: 400, code }));
  return byStatus([...named, ...validation]);
}

/** "Errors: 400 a, b; 403 c." */
function errorSentence(codes: Map<number, string[]>): string {
  return `Errors: ${[...codes].map(([status, list]) => `${status} ${list.join(', ')}`).join('; ')}.`;
}

const envelope = (codes: string[]) => ({
  type: 'object',
  required: ['error'],
  additionalProperties: true,
  description: codes.join(', '),
  properties: { error: { type: 'string', enum: codes } },
});

/**
 * @fastify/swagger's transform: the document's text of a route's codes. Only the document
 * changes; the route's own response schemas (which serialise its replies) stay as written.
 */
export function documentErrors(input: { schema: FastifySchema; url: string; route: object }): {
  schema: FastifySchema;
  url: string;
} {
  const { schema, url, route } = input;
  if (!schema || schema.hide) return { schema, url };
  const codes = routeErrors(schema, route as { config?: { validationCode?: ValidationCode } });
  const { errors: _listed, ...rest } = schema;
  if (codes.size === 0) return { schema: rest, url };
  const response = { ...((schema.response ?? {}) as Json) };
  // In the document only: a route's own schema for an error status (the 501 paths') serialises as before.
  for (const [status, list] of codes) response[status] = envelope(list);
  const description = [schema.description, errorSentence(codes)].filter(Boolean).join(' ');
  return { schema: { ...rest, response, description }, url };
}
