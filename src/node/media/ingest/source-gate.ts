import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Logger } from 'pino';

/**
 * The only way out for an ffmpeg reading an http(s) source (issue 25, item 3): a forward proxy
 * on the loopback, one per ingest, that lets requests reach the source's own host and port and
 * nothing else. ffmpeg follows redirects (up to 8, with no option to turn that off in every
 * build the node may use) and an HLS playlist names its variants and segments by URL, so a
 * camera (or whoever answers in its name) could otherwise send the node anywhere: its cloud
 * metadata service, an internal address. Each hop passes here, so each is checked: a request
 * or CONNECT to another host answers 403 and ffmpeg gives up on it. ffmpeg is told to use it
 * with its `http_proxy` option, which the hls demuxer hands to every playlist and segment it
 * opens, and which tls uses for a CONNECT tunnel.
 */
export class SourceGate {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly host: string;
  private readonly port: string;
  /** Why the last connection to the source failed (its errno code: ECONNREFUSED...): ffmpeg only sees a 502 (a probe tells it in words). */
  upstreamError: string | null = null;

  constructor(
    source: string,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly stream: string,
  ) {
    const u = new URL(source);
    this.host = u.hostname.toLowerCase();
    this.port = u.port || (u.protocol === 'https:' ? '443' : '80');
  }

  /** Starts listening on 127.0.0.1 (an ephemeral port); answers the proxy URL to give ffmpeg. */
  async open(): Promise<string> {
    if (!this.server) {
      const server = createServer((req, res) => this.forward(req, res));
      server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => this.tunnel(req, socket, head));
      server.on('connection', (s: Socket) => {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      this.server = server;
    }
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Whether `host` and `port` are the source's own. */
  private allowed(host: string, port: string, https: boolean): boolean {
    const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
    return h === this.host.replace(/^\[(.*)\]$/, '$1') && (port || (https ? '443' : '80')) === this.port;
  }

  private refuse(target: string): void {
    // The host only: a path or query may carry the camera's credentials.
    this.log.warn(
      { stream: this.stream, refused_host: target },
      'source gate refused a request to another host than the source',
    );
  }

  /** A plain http request through the proxy: `GET http://host:port/path`. */
  private forward(req: IncomingMessage, res: ServerResponse): void {
    let u: URL;
    try {
      u = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (u.protocol !== 'http:' || !this.allowed(u.hostname, u.port, false)) {
      this.refuse(u.hostname);
      res.writeHead(403, { 'content-type': 'text/plain' }).end("the source gate allows only the source's own host\n");
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    // Redirects are not followed here: a 3xx goes back to ffmpeg, whose next hop comes here again.
    const up = request(
      {
        host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: u.port || 80,
        method: req.method,
        path: `${u.pathname}${u.search}`,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', (err: NodeJS.ErrnoException) => {
      // Not when ffmpeg went first (its end destroys this request).
      if (!res.closed) this.upstreamError = err.code ?? 'EIO';
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.on('close', () => up.destroy());
    req.pipe(up);
  }

  /** An https source: `CONNECT host:port`, then TLS end to end between ffmpeg and the source. */
  private tunnel(req: IncomingMessage, socket: Socket, head: Buffer): void {
    let u: URL | null = null;
    try {
      u = new URL(`https://${req.url ?? ''}`);
    } catch {
      /* refused below */
    }
    if (!u || !this.allowed(u.hostname, u.port, true)) {
      this.refuse(u?.hostname ?? '(unparsable)');
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const up = connect({ host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(u.port || 443) }, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', (err: NodeJS.ErrnoException) => {
      if (!socket.destroyed) this.upstreamError = err.code ?? 'EIO';
      socket.destroy();
    });
    socket.on('error', () => up.destroy());
    socket.on('close', () => up.destroy());
  }
}

/** The environment of an ffmpeg behind a gate: no proxy variable of the host may take it elsewhere (`no_proxy` would bypass the gate). */
export function gatedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const k of [
    'http_proxy',
    'HTTP_PROXY',
    'https_proxy',
    'HTTPS_PROXY',
    'no_proxy',
    'NO_PROXY',
    'all_proxy',
    'ALL_PROXY',
  ])
    delete out[k];
  return out;
}
