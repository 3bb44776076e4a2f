/**
 * The credential of an `Authorization: Bearer <token>` header, or null. One parser for the plane and
 * the node, so both accept the same spellings (any case of "Bearer", spaces or tabs around the token).
 */
export function bearerOf(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? m[1]! : null;
}
