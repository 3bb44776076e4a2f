import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parse, patch } from '@decimalturn/toml-patch';
import { writeFileAtomic } from '../../common/atomic-file.js';

/** plane.toml as read: its text, the parsed document and the hash that is the GET's ETag. */
export interface TomlFile {
  text: string;
  doc: Record<string, unknown>;
  etag: string;
}

export const etagOf = (text: string) => `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`;

export async function readPlaneToml(path: string): Promise<TomlFile> {
  const text = await readFile(path, 'utf8');
  return { text, doc: parse(text) as Record<string, unknown>, etag: etagOf(text) };
}

/** A key path and its new value; undefined removes the key. */
export type Edit = [path: string[], value: unknown];

/**
 * The text after `edits`, every other byte as it was: comments, order, blank lines and keys the
 * plane does not know (toml-patch edits the document in place rather than writing it anew).
 */
export function applyEdits(text: string, edits: Edit[]): string {
  const doc = parse(text) as Record<string, unknown>;
  for (const [path, value] of edits) {
    let node = doc;
    for (const key of path.slice(0, -1)) {
      const next = node[key];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
      node = node[key] as Record<string, unknown>;
    }
    const last = path[path.length - 1]!;
    if (value === undefined) delete node[last];
    else node[last] = value;
  }
  // A new table two levels deep ([notifications.smtp]) is written as a section of its own at the end,
  // not as an inline table slipped in after the last comment of its parent (a foreign one, maybe).
  return patch(text, doc, { inlineTableStart: 2 });
}

/** Writes the new text with the project's helper (all bytes, fsync, rename, fsync the folder). */
export function writePlaneToml(path: string, text: string): Promise<void> {
  return writeFileAtomic(path, text, 0o600);
}

/** A value at a key path of a parsed document, or undefined. */
export function at(doc: Record<string, unknown>, ...path: string[]): unknown {
  let v: unknown = doc;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}
