import { Type } from 'typebox';

/** The API's one time format: ISO 8601 in UTC with milliseconds. */
export function iso(d: Date | string | number): string;
export function iso(d: Date | string | number | null): string | null;
export function iso(d: Date | string | number | null): string | null {
  if (d === null) return null;
  return (d instanceof Date ? d : new Date(d)).toISOString();
}

/**
 * The instants a timestamp of the API may name (issue 25, finding 7): the four-digit years of
 * RFC 3339, in UTC. PostgreSQL takes more (4713 BC to 294276 AD), but it refuses the text of
 * year 0 and of years past 9999 that `toISOString` writes, and JavaScript parses far more
 * (-271821 to +275760): a bound past these answered 500 where it reached the database.
 */
export const TIMESTAMP_MIN_MS = Date.parse('0001-01-01T00:00:00.000Z');
export const TIMESTAMP_MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

// RFC 3339 date-time: a T (either case), seconds required, any fraction, Z or a numeric offset.
// No RFC 9557 suffix (`[Europe/Paris]`) and no space for the T: the query string turns an
// unencoded `+` into a space, and a guess at what was meant is not a timestamp.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

function daysIn(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one; setUTCFullYear keeps years 0-99 as written.
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
}

/**
 * The instant of an RFC 3339 timestamp, or null when the text is not one: a calendar date that
 * does not exist (`2026-02-30`, which `Date.parse` rolls over to March 2), hour 24, second 60
 * (PostgreSQL and JavaScript disagree on it), an offset past 23:59, or an instant outside
 * TIMESTAMP_MIN_MS..TIMESTAMP_MAX_MS. Every route that takes a timestamp goes through it.
 */
export function parseTimestamp(text: string): Date | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return null;
  const ms = Date.parse(text.toUpperCase());
  if (!Number.isFinite(ms) || ms < TIMESTAMP_MIN_MS || ms > TIMESTAMP_MAX_MS) return null;
  return new Date(ms);
}

/** The format check of `date-time` for both validators (Fastify's Ajv and TypeBox's Value). */
export const isTimestamp = (text: string): boolean => parseTimestamp(text) !== null;

/**
 * A timestamp field of a route schema. The format stays `date-time` (what OpenAPI clients know);
 * the plane's validators check it with `isTimestamp` (src/plane/http/validation.ts).
 */
export const Timestamp = Type.String({
  format: 'date-time',
  maxLength: 64,
  description: 'RFC 3339; an existing calendar date between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z',
});
