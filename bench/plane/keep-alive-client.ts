import { Agent, request } from 'node:http';

/** A reply as the benches read it: the status and the parsed JSON body (or the text). */
interface Reply {
  status: number;
  json: any;
}

/**
 * A JSON-over-HTTP client on one keep-alive agent of `maxSockets` connections: node:http rather
 * than fetch, so that what a bench measures is the plane, not the client's own overhead.
 * `must` throws on a status of 300 or more, naming what was asked.
 */
export function keepAliveClient(maxSockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  function http(base: string, method: string, path: string, body: unknown, token?: string): Promise<Reply> {
    const u = new URL(path, base);
    const text = body === undefined ? null : JSON.stringify(body);
    return new Promise((res, rej) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          method,
          path: u.pathname + u.search,
          agent,
          headers: {
            ...(text !== null ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } : {}),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c) => chunks.push(c));
          r.on('end', () => {
            const t = Buffer.concat(chunks).toString();
            res({ status: r.statusCode ?? 0, json: t.startsWith('{') ? JSON.parse(t) : t });
          });
        },
      );
      req.on('error', rej);
      if (text !== null) req.write(text);
      req.end();
    });
  }
  const must = async (p: Promise<Reply>, what: string) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  };
  return { http, must, agent };
}
