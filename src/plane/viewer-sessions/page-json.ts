import type { ViewerSession } from './viewer-sessions.schemas.js';

/**
 * The fleet session page's JSON, written from parts made once per node answer (issue 26). A row's
 * text is the same in every request a node answer serves but for `connected_ms` (its age), and
 * escaping its strings was the largest part of the reply's serialisation: a row made by the
 * service carries its text in two parts, around `connected_ms`. The parts are JSON.stringify's, in
 * the schema's field order, so the text is what the schema's serialiser would write.
 */
const JSON_PARTS = Symbol('viewer-session-json');

/** The text of a row but for `connected_ms`, made once per node answer and names (see JsonParts). */
export interface JsonParts {
  /** `{"stream":…,"sub":…,"connected_ms":` */
  head: string;
  /** `,"node_id":…,"subject_name":…}` */
  tail: string;
}

type WithParts = ViewerSession & { [JSON_PARTS]?: JsonParts };

export function jsonParts(s: ViewerSession): JsonParts {
  const { stream, protocol, client_ip, user_agent, sub } = s;
  const { node_id, node_name, camera_id, camera_name, subject_kind, subject_id, subject_name } = s;
  const head = JSON.stringify({ stream, protocol, client_ip, user_agent, sub });
  const tail = JSON.stringify({ node_id, node_name, camera_id, camera_name, subject_kind, subject_id, subject_name });
  return { head: `${head.slice(0, -1)},"connected_ms":`, tail: `,${tail.slice(1)}` };
}

/** `s` with its text attached (a symbol key: invisible to JSON and to the other readers of the row). */
export function withJsonParts(s: ViewerSession, parts: JsonParts): ViewerSession {
  (s as WithParts)[JSON_PARTS] = parts;
  return s;
}

function rowJson(s: ViewerSession): string {
  const parts = (s as WithParts)[JSON_PARTS] ?? jsonParts(s);
  return `${parts.head}${s.connected_ms}${parts.tail}`;
}

/** The reply's serialiser for GET /api/v1/sessions (SessionsPage, in its field order). */
export function sessionsPageJson(page: {
  items: ViewerSession[];
  limit: number;
  next_cursor: string | null;
  partial_nodes: string[];
  sampled_at: number;
}): string {
  return (
    `{"items":[${page.items.map(rowJson).join(',')}],"limit":${page.limit},` +
    `"next_cursor":${JSON.stringify(page.next_cursor)},"partial_nodes":${JSON.stringify(page.partial_nodes)},` +
    `"sampled_at":${page.sampled_at}}`
  );
}
