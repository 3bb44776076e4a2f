/** A value of a PostgreSQL array literal: null and undefined are NULL. */
export type Scalar = string | number | boolean | null | undefined;

/**
 * A column as a PostgreSQL array literal, made in one pass (node-postgres escapes each element
 * through a regular expression pair; about 3% of intake CPU in bench/plane/intake.ts). `quoted`
 * for free text and JSON; ids, times, numbers and booleans never need quotes.
 */
export function arrayLiteral(values: readonly Scalar[], quoted: boolean): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else if (!quoted) out += typeof v === 'boolean' ? (v ? 't' : 'f') : String(v);
    else {
      const t = String(v);
      out += t.includes('\\') || t.includes('"') ? `"${t.replace(/[\\"]/g, '\\$&')}"` : `"${t}"`;
    }
  }
  return out + '}';
}
