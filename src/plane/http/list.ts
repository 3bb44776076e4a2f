import { Type, type TSchema } from 'typebox';
import Value from 'typebox/value';
import type { FastifyRequest } from 'fastify';
import { errors, type BadRequestCode } from '../errors.js';

/**
 * The list and record conventions of document 1 shared by the inventory routes: `{rows, next}`
 * pages ordered by id with `after` (the id of the previous page's last row) and `limit`
 * (default 500, 1..500), and the `org` narrowing of a superadmin.
 */
export const DEFAULT_LIMIT = 500;

export const Uuid = Type.String({ format: 'uuid' });

/**
 * Nullable in bodies as a JSON-schema type array, not anyOf: with coerceTypes the first anyOf
 * branch would coerce a null into 0 or "" before the null branch is tried.
 */
export function NullableBody<T extends TSchema>(t: T, extra: Record<string, unknown> = {}) {
  const s = t as unknown as Record<string, unknown>;
  return Type.Unsafe<Exclude<T['static' & keyof T], never> | null>({
    ...s,
    type: [s.type as string, 'null'],
    ...extra,
  });
}

/** Nullable in replies (serialisation only, no coercion involved). */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ListQuery = Type.Object(
  {
    org: Type.Optional(Uuid),
    after: Type.Optional(Uuid),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: DEFAULT_LIMIT })),
  },
  { additionalProperties: false },
);

export interface ListArgs {
  org?: string;
  after?: string;
  limit?: number;
}

export const Page = <T extends TSchema>(row: T) => Type.Object({ rows: Type.Array(row), next: Nullable(Uuid) });

/**
 * The path id is a plain string in the schema: a malformed id is an unknown record (404), the
 * same bytes as a well-formed id that does not exist, never a 400 that tells them apart.
 */
export const IdParams = Type.Object({ id: Type.String({ description: 'uuid' }) });

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}
export function requireUuid(id: string): string {
  if (!isUuid(id)) throw errors.notFound();
  return id.toLowerCase();
}

/** Rows fetched with limit + 1: the extra row only says that another page exists. */
export function pageOf<R extends { id: string }, O>(
  rows: R[],
  limit: number,
  map: (r: R) => O,
): { rows: O[]; next: string | null } {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { rows: page.map(map), next: more ? page[page.length - 1]!.id : null };
}

/** Maps schema failures of the inventory routes to their codes; per-route field codes first. */
export function validationCodes(fields: Record<string, string> = {}) {
  return (field: string, keyword: string): string | undefined => {
    if (keyword === 'additionalProperties') return 'unknown_field';
    const top = field.split('/')[0]!;
    if (fields[top]) return fields[top];
    if (top === 'limit') return 'bad_limit';
    if (top === 'after') return 'bad_cursor';
    if (top === 'org' || top === 'org_id') return 'bad_org';
    return 'bad_request';
  };
}

export const sec = [{ bearer: [] }];

/**
 * A body checked as sent, before the framework's validator: that one coerces types (it must, for
 * query strings), which in a body would turn `"disabled": null` into `false` and re-enable a user,
 * or `"max_users": ""` into unlimited. Use on every inventory route with a body:
 *   { preValidation: strictBody(Body, FieldCodes), ... }
 */
export function strictBody(schema: TSchema, fields: Record<string, string> = {}) {
  const code = validationCodes(fields);
  return async (req: FastifyRequest): Promise<void> => {
    if (Value.Check(schema, req.body)) return;
    const e = Value.Errors(schema, req.body)[0] as
      { keyword: string; schemaPath: string; instancePath: string; params: Record<string, unknown> } | undefined;
    if (!e) throw errors.badRequest('bad_request');
    if (e.schemaPath.endsWith('/additionalProperties')) throw errors.badRequest('unknown_field');
    const field =
      e.keyword === 'required'
        ? String((e.params.requiredProperties as string[] | undefined)?.[0] ?? '')
        : e.instancePath.replace(/^\//, '');
    throw errors.badRequest(field ? (code(field, e.keyword) as BadRequestCode) : 'bad_request');
  };
}

/** The reply of every inventory DELETE, as the module-token routes of document 1 answer. */
export const Deleted = Type.Object({ id: Uuid, deleted: Type.Literal(true) });

/** A display name: 1..128 characters, not blank, no control characters. */
// At least one visible character, and no control character anywhere (\S alone would admit one).
export const Name = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$',
});
