import { errors } from '../errors.js';
import { isUuid } from '../http/list.js';

/**
 * Where the next page of GET /api/v1/sessions starts: a node, and within it the last row returned
 * (its start time and the node's session id: rows are ordered by both). It is bound to the caller
 * and to the filters it was made under. Base64url JSON, validated field by field rather than
 * signed: it carries no right (the nodes asked and every row are re-derived from the caller's
 * rights on each request) and any plane process reads it (docs/node-ops.md).
 */
export interface SessionsCursor {
  node: string;
  after: { started_ms: number; id: string } | null;
}

interface Binding {
  user: string;
  camera: string | null;
  q: string | null;
}

export function encodeCursor(c: SessionsCursor, b: Binding): string {
  const doc = {
    v: 1,
    n: c.node,
    s: c.after?.started_ms ?? null,
    i: c.after?.id ?? null,
    u: b.user,
    c: b.camera,
    q: b.q,
  };
  return Buffer.from(JSON.stringify(doc)).toString('base64url');
}

const bad = () => errors.badRequest('bad_cursor');

/** 400 `bad_cursor`: not one of ours, altered, or made for another caller or other filters. */
export function decodeCursor(text: string, b: Binding): SessionsCursor {
  if (text.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(text)) throw bad();
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (typeof doc !== 'object' || doc === null) throw bad();
  const d = doc as Record<string, unknown>;
  if (Object.keys(d).sort().join() !== 'c,i,n,q,s,u,v') throw bad();
  if (d.v !== 1 || typeof d.n !== 'string' || !isUuid(d.n)) throw bad();
  if (d.u !== b.user || d.c !== b.camera || d.q !== b.q) throw bad();
  if (d.s === null && d.i === null) return { node: d.n.toLowerCase(), after: null };
  if (
    !Number.isSafeInteger(d.s) ||
    (d.s as number) < 0 ||
    typeof d.i !== 'string' ||
    d.i.length === 0 ||
    d.i.length > 128
  )
    throw bad();
  return { node: d.n.toLowerCase(), after: { started_ms: d.s as number, id: d.i } };
}
