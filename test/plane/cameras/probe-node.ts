import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeHttpServer } from '../fake-http.js';

/**
 * A streaming node as the camera probe sees it: `POST /api/v1/probe` behind the write token (401
 * otherwise) answering `reply`. `mode`: `up` answers, `hang` never answers, `forbid` 403 (the
 * token is the read token), `garbage` a body that is not the probe's reply.
 */
export class ProbeNode extends FakeHttpServer {
  mode: 'up' | 'hang' | 'forbid' | 'garbage' = 'up';
  reply: unknown = {
    ok: true,
    video: { codec: 'h264', width: 1920, height: 1080, fps: 25 },
    audio: { codec: 'aac' },
    error: null,
  };
  requests: Array<{ method: string; path: string; authorization: string | undefined; body: unknown }> = [];

  private constructor(readonly token: string) {
    super();
  }

  static async start(token = 'probe-node-token-0123456789'): Promise<ProbeNode> {
    const n = new ProbeNode(token);
    await n.listen();
    return n;
  }

  protected answer(req: IncomingMessage, res: ServerResponse, text: string): void {
    this.requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      body: text ? (JSON.parse(text) as unknown) : null,
    });
    if (this.mode === 'hang') return this.hang(res);
    if (req.headers.authorization !== `Bearer ${this.token}`) return this.json(res, 401, { error: 'unauthorized' });
    if (this.mode === 'forbid') return this.json(res, 403, { error: 'forbidden', reason: 'read_token_cannot_write' });
    if (req.method !== 'POST' || req.url !== '/api/v1/probe') return this.json(res, 404, { error: 'not_found' });
    if (this.mode === 'garbage') return this.json(res, 200, { ok: 'yes' });
    this.json(res, 200, this.reply);
  }
}
