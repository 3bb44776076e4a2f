import { Type, type Static } from 'typebox';
import Value from 'typebox/value';
import type { FastifyRequest } from 'fastify';
import { Name, Nullable, Uuid } from '../http/list.js';
import { errors, type BadRequestCode } from '../errors.js';

/**
 * A user's own console preferences (document 4 §12): the zone times are shown in (an IANA name,
 * or null for the browser's own), 24 h or 12 h clock, and up to 32 saved live views.
 */
export const PREFERENCES_MAX_BYTES = 64 * 1024;
const MAX_VIEWS = 32;
// IANA names are short (the longest is 32 characters); isTimeZone() refuses longer ones too.
const TIMEZONE_MAX = 64;

const Clock = Type.Union([Type.Literal('24h'), Type.Literal('12h')]);
const Layout = Type.Union([
  Type.Literal('1'),
  Type.Literal('2x2'),
  Type.Literal('3x3'),
  Type.Literal('4x4'),
  Type.Literal('auto'),
]);

const View = Type.Object(
  {
    name: Name,
    layout: Layout,
    camera_ids: Type.Array(Uuid, { description: 'in grid order; a camera the user may no longer see is left out' }),
  },
  { additionalProperties: false },
);

/** The PUT body: the whole record, every field required (a PUT replaces it). */
export const PreferencesBody = Type.Object(
  {
    // A type array, not anyOf (see NullableBody in http/list.ts), typed here as what it admits.
    timezone: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      minLength: 1,
      maxLength: TIMEZONE_MAX,
      description: "an IANA time zone name, or null for the browser's own",
    }),
    clock: Clock,
    views: Type.Array(View, { maxItems: MAX_VIEWS }),
  },
  { additionalProperties: false },
);
export type PreferencesInput = Static<typeof PreferencesBody>;

export const PreferencesReply = Type.Object({
  timezone: Nullable(Type.String()),
  clock: Clock,
  views: Type.Array(View),
});
export type Preferences = Static<typeof PreferencesReply>;

/**
 * The 400 code of a field of the body, by its path (`views/3/layout`): nested fields have codes
 * of their own, which the inventory routes' top-level mapping (http/list.ts) cannot give.
 */
export function preferencesCode(path: string, keyword = ''): BadRequestCode {
  if (keyword === 'additionalProperties') return 'unknown_field';
  const [top, , field] = path.split('/').filter(Boolean);
  if (top === 'timezone') return 'bad_timezone';
  if (top === 'clock') return 'bad_clock';
  if (top !== 'views') return 'bad_request';
  if (field === 'name') return 'bad_name';
  if (field === 'layout') return 'bad_layout';
  if (field === 'camera_ids') return 'bad_camera';
  return 'bad_views';
}

/**
 * The body checked as sent, before the framework's coercing validator (as http/list.ts's
 * strictBody, but with the nested fields' codes): the first failure names the code.
 */
export async function checkPreferencesBody(req: FastifyRequest): Promise<void> {
  if (Value.Check(PreferencesBody, req.body)) return;
  const e = Value.Errors(PreferencesBody, req.body)[0] as
    { keyword: string; schemaPath: string; instancePath: string; params: Record<string, unknown> } | undefined;
  if (!e) throw errors.badRequest('bad_request');
  if (e.schemaPath.endsWith('/additionalProperties')) throw errors.badRequest('unknown_field');
  // A missing property is reported at its parent: name the property itself.
  const missing = e.keyword === 'required' ? (e.params.requiredProperties as string[] | undefined)?.[0] : undefined;
  throw errors.badRequest(preferencesCode(missing ? `${e.instancePath}/${missing}` : e.instancePath, e.keyword));
}
