/** One server of a `[database] url` and the single-host URL that reaches it. */
export interface DatabaseHost {
  /** `host:port` as written (brackets kept for IPv6), for logs and /health. */
  readonly name: string;
  readonly url: string;
}

/** A `[database] url` whose host list cannot be read. */
export class DatabaseUrlError extends Error {}

const DEFAULT_PORT = '5432';

/**
 * The servers a `[database] url` lists, in its order, each as a URL node-postgres can open
 * (it reads one host only): `postgres://u:p@h1:5432,h2:5433/argus?x=y` gives
 * `postgres://u:p@h1:5432/argus?x=y` and `postgres://u:p@h2:5433/argus?x=y`. A URL of one host is
 * returned as written, so a single server behaves exactly as before several were allowed.
 * The list is libpq's multi-host form (document 4, section 15); a host without a port takes 5432.
 */
export function parseDatabaseHosts(url: string): DatabaseHost[] {
  const m = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/s.exec(url);
  if (!m) throw new DatabaseUrlError('database url must start with postgres://');
  const [, scheme, authority, rest] = m as unknown as [string, string, string, string];
  // The credentials end at the last '@' before the path: a password may hold an encoded '@' only.
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  const hostList = authority.slice(at + 1);
  const parts = splitHosts(hostList);
  // Not even checked: whatever node-postgres accepted before (a socket folder, a host parameter) still works.
  if (parts.length <= 1) return [{ name: hostList || 'localhost', url }];
  return parts.map((part) => {
    const { host, port } = parseHost(part);
    const name = `${host}:${port}`;
    return { name, url: `${scheme}${userinfo}${name}${rest}` };
  });
}

/** Splits at the commas between hosts (none inside an IPv6 literal's brackets). */
function splitHosts(list: string): string[] {
  if (list === '') return [];
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(list.slice(start));
  return parts;
}

function parseHost(part: string): { host: string; port: string } {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^[\]:,]+)(?::(\d{1,5}))?$/.exec(part);
  if (!m) throw new DatabaseUrlError(`database url: "${part}" is not a host or host:port`);
  const port = m[2] ?? DEFAULT_PORT;
  if (Number(port) < 1 || Number(port) > 65535)
    throw new DatabaseUrlError(`database url: port ${port} is out of range`);
  return { host: m[1]!, port };
}
