import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';

/** One request a webhook receiver got. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: {
    dedupe_key: string;
    rule: { id: string; name: string } | null;
    event: Record<string, unknown>;
    snapshot_url: string | null;
  };
}

/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: answers `status` (after `delayMs`), keeps
 * what it got. `down()` refuses connections (the port closed); `up()` listens again on the same port.
 */
export class Receiver {
  readonly got: Received[] = [];
  status = 200;
  delayMs = 0;
  pending = 0;
  private server: http.Server | null = null;
  port = 0;

  async up(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.pending++;
        const answer = () => {
          this.pending--;
          if (this.status >= 200 && this.status < 300)
            this.got.push({ headers: req.headers, body, json: JSON.parse(body) });
          res.statusCode = this.status;
          res.end();
        };
        if (this.delayMs) setTimeout(answer, this.delayMs).unref();
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async down(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Deliveries received per dedupe_key. */
  counts(): Map<string, number> {
    const m = new Map<string, number>();
    for (const r of this.got) m.set(r.json.dedupe_key, (m.get(r.json.dedupe_key) ?? 0) + 1);
    return m;
  }
}

/** What a receiver does with the signature header (docs/notifications.md has the same snippet). */
export function verifySignature(secret: string, body: string, header: string | undefined): boolean {
  const want = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const got = Buffer.from(header ?? '');
  return got.length === want.length && timingSafeEqual(got, want);
}

/** Waits until `cond` holds (a condition, not a duration, is what the test checks). */
export async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
