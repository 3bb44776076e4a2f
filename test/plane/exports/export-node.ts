import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jwtVerify } from 'jose';
import { FakeHttpServer } from '../fake-http.js';

/**
 * A node as an export sees it: `GET /{stream}/export-{from}-{secs}.mp4?token=` answers `file`
 * when the viewer token is the plane's for that stream (hs256 with `secret`), else the node's
 * 403; `refuse` makes it answer a refusal instead (404 no_recording, 400 invalid_range, 500
 * export_failed), `cut` sends half the file and breaks the connection, `gate` holds the second half. The plane's stream writes
 * (PUT/DELETE /api/v1/streams/...) are taken and ignored.
 */
export class ExportNode extends FakeHttpServer {
  file = '';
  refuse: { status: number; error: string } | null = null;
  cut = false;
  /** when set, the node sends the file's first half, then waits for it before the rest */
  gate: Promise<void> | null = null;
  /** how long the node takes to make the file before its headers */
  delayMs = 0;
  exports: Array<{ stream: string; from: number; secs: number; claims: Record<string, unknown>; token: string }> = [];

  private constructor(readonly secret: string) {
    super();
  }

  static async start(secret: string): Promise<ExportNode> {
    const n = new ExportNode(secret);
    await n.listen();
    return n;
  }

  protected answer(req: IncomingMessage, res: ServerResponse): void {
    void this.reply(req, res);
  }

  private async reply(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://node');
    if (url.pathname.startsWith('/api/v1/')) return this.json(res, 200, {});
    const m = /^\/([^/]+)\/export-(\d+)-(\d+)\.mp4$/.exec(url.pathname);
    if (!m) return this.json(res, 404, { error: 'not_found' });
    const stream = decodeURIComponent(m[1]!);
    let claims: Record<string, unknown>;
    try {
      claims = (
        await jwtVerify(url.searchParams.get('token') ?? '', new TextEncoder().encode(this.secret), {
          algorithms: ['HS256'],
        })
      ).payload as Record<string, unknown>;
      if (claims.stream !== stream || claims.typ !== 'viewer') throw new Error('another stream');
    } catch {
      return this.json(res, 403, { error: 'forbidden', reason: 'viewer_token_invalid' });
    }
    this.exports.push({
      stream,
      from: Number(m[2]),
      secs: Number(m[3]),
      claims,
      token: url.searchParams.get('token')!,
    });
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.refuse) return this.json(res, this.refuse.status, { error: this.refuse.error });
    const size = (await stat(this.file)).size;
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(size) });
    if (this.cut) {
      const half = createReadStream(this.file, { end: Math.floor(size / 2) });
      half.on('end', () => setTimeout(() => res.socket?.destroy(), 50));
      half.pipe(res, { end: false });
      return;
    }
    if (this.gate) {
      const half = Math.floor(size / 2);
      const gate = this.gate;
      const first = createReadStream(this.file, { end: half - 1 });
      first.pipe(res, { end: false });
      first.on('end', () => void gate.then(() => createReadStream(this.file, { start: half }).pipe(res)));
      return;
    }
    createReadStream(this.file).pipe(res);
  }
}
