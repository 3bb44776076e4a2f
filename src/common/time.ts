/** The API's one time format: ISO 8601 in UTC with milliseconds. */
export function iso(d: Date | string | number): string;
export function iso(d: Date | string | number | null): string | null;
export function iso(d: Date | string | number | null): string | null {
  if (d === null) return null;
  return (d instanceof Date ? d : new Date(d)).toISOString();
}
