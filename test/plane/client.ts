import type { FastifyInstance, InjectOptions } from 'fastify';
import { ROOT } from './harness.js';

export interface Reply {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A small client over app.inject() with bearer tokens. */
export class Client {
  constructor(
    readonly app: FastifyInstance,
    public token: string | null = null,
  ) {}

  async req(
    method: InjectOptions['method'],
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const res = await this.app.inject({
      method,
      url,
      headers: { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...headers },
      ...(body !== undefined ? { payload: body as any } : {}),
    });
    let parsed: unknown = undefined;
    if (String(res.headers['content-type'] ?? '').startsWith('application/json')) parsed = res.json();
    return { status: res.statusCode, body: parsed, headers: res.headers as any, text: res.body };
  }
  get(url: string, headers?: Record<string, string>) {
    return this.req('GET', url, undefined, headers);
  }
  post(url: string, body?: unknown) {
    return this.req('POST', url, body ?? {});
  }
  patch(url: string, body: unknown) {
    return this.req('PATCH', url, body);
  }
  put(url: string, body: unknown) {
    return this.req('PUT', url, body);
  }
  del(url: string) {
    return this.req('DELETE', url);
  }

  as(token: string | null): Client {
    return new Client(this.app, token);
  }
}

export async function login(app: FastifyInstance, creds: { login: string; password: string } = ROOT): Promise<Client> {
  const c = new Client(app);
  const r = await c.post('/api/v1/auth/login', { login: creds.login, password: creds.password });
  if (r.status !== 200) throw new Error(`login ${creds.login} failed: ${r.status} ${r.text}`);
  c.token = r.body.token;
  return c;
}
