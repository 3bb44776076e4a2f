import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The address HAProxy connects to the planes from: the one address in their trusted_proxies. */
export const PROXY_SOURCE = '127.0.0.3';

/** haproxy on PATH (or in /usr/sbin, where Debian puts it), else null: the suite is skipped. */
export function haproxyBinary(): string | null {
  for (const bin of ['haproxy', '/usr/sbin/haproxy']) {
    if (spawnSync(bin, ['-v'], { stdio: 'ignore' }).status === 0) return bin;
  }
  return null;
}

/**
 * The configuration docs/deployment.md shows, with test ports: round robin over the planes, a
 * health check on /health, X-Forwarded-For set by the proxy alone (a client's own is dropped),
 * long-lived SSE responses let through (timeout tunnel), a request whose plane refuses the
 * connection sent to the other (redispatch), and the serving plane named in a response header.
 */
export function haproxyConfig(front: number, planes: number[]): string {
  const servers = planes
    .map((p, i) => `  server plane${i + 1} 127.0.0.1:${p} source ${PROXY_SOURCE} check inter 300 fall 1 rise 1`)
    .join('\n');
  return `global
  maxconn 512

defaults
  mode http
  option httplog
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout tunnel 1h
  retries 3
  option redispatch 1
  # A request never rides an idle connection to a plane that has died since (a 502 that is not
  # retried): each opens its own, so a dead plane is a refused connection, retried on the other.
  http-reuse never

frontend argus
  bind 127.0.0.1:${front}
  http-request del-header X-Forwarded-For
  option forwardfor
  default_backend planes

backend planes
  balance roundrobin
  option httpchk GET /health
  http-check expect status 200
  http-response set-header X-Argus-Backend %[srv_name]
${servers}
`;
}

/** A real HAProxy in the foreground, stopped by its process id. */
export class HaProxy {
  out = '';
  private child!: ChildProcess;
  constructor(
    private readonly bin: string,
    private readonly dir: string,
  ) {}

  async start(config: string, front: number): Promise<void> {
    const file = join(this.dir, 'haproxy.cfg');
    await writeFile(file, config);
    this.child = spawn(this.bin, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (b) => (this.out += b.toString()));
    this.child.stderr!.on('data', (b) => (this.out += b.toString()));
    const until = Date.now() + 10_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`haproxy exited:\n${this.out}`);
      const up = await fetch(`http://127.0.0.1:${front}/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (up) return;
      if (Date.now() > until) throw new Error(`haproxy not answering:\n${this.out}`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const gone = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await gone;
  }
}

export interface Answer {
  status: number;
  body: any;
  backend: string | undefined;
}

/** One request to the proxy from the loopback address `from` (the client address the planes must see). */
export function call(
  port: number,
  method: string,
  path: string,
  opts: { body?: unknown; token?: string; from?: string } = {},
): Promise<Answer> {
  const payload = opts.body !== undefined ? JSON.stringify(opts.body) : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress: opts.from,
        headers: {
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        },
        timeout: 20_000,
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          // The proxy's own error pages are HTML: kept as text, so a test fails on the status
          // instead of hanging on an exception thrown here.
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : null;
          } catch {
            body = text;
          }
          resolve({ status: res.statusCode ?? 0, body, backend: res.headers['x-argus-backend'] as string | undefined });
        });
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.end(payload);
  });
}
