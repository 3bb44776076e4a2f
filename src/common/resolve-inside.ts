import { resolve, sep, isAbsolute } from 'node:path';

export class PathEscapeError extends Error {
  constructor() {
    super('path escapes its root');
  }
}

/**
 * The one resolver for user-influenced paths: `rel` must stay inside `root` after
 * normalisation. Absolute paths, `..` escapes and NUL bytes are refused.
 */
export function resolveInside(root: string, rel: string): string {
  if (rel.includes('\0') || isAbsolute(rel)) throw new PathEscapeError();
  const base = resolve(root);
  const full = resolve(base, rel);
  if (full !== base && !full.startsWith(base + sep)) throw new PathEscapeError();
  return full;
}
