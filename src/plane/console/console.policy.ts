import type { Clock } from '../../common/clock.js';

/** What the console needs of the nodes domain: where the players fetch from (NodesService.origins). */
export interface NodeOrigins {
  origins(): Promise<string[]>;
}

// An origin that a CSP source expression holds as it is: scheme, host (a name or an IPv4
// address) and port. A host name may legally hold `;`, `,` or `'` (WHATWG URL), which would end
// or change a directive: such a node (or an IPv6 literal, which CSP has no syntax for) is left
// out, and its players are refused by the browser rather than the policy opened to every origin.
const SOURCE_RE = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$/;

/**
 * The console's content policy: scripts only from the plane (no inline, no eval), inline styles
 * (React style attributes), blob: media and workers (hls.js), no framing; media and XHR only to
 * the plane and the registered nodes' origins (issue 25, item 13: it was any http(s) origin), and
 * the nodes' WebSocket origins for XHR (live.ws, issue 23); the
 * web app manifest and the service worker from the plane (issue 22, installable).
 */
export function contentPolicy(nodeOrigins: readonly string[]): string {
  const valid = nodeOrigins.filter((o) => SOURCE_RE.test(o));
  const nodes = valid.map((o) => ` ${o}`).join('');
  // Live video over a WebSocket (GET /{stream}/live.ws, issue 23): Chromium does not let an
  // http(s) source expression match ws(s) URLs, so each node is also named by its ws(s) origin.
  const sockets = valid.map((o) => ` ${o} ${o.replace(/^http/, 'ws')}`).join('');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    `media-src 'self' blob:${nodes}`,
    `connect-src 'self'${sockets}`,
    // The service worker (/sw.js) and hls.js's blob: worker; the web app manifest from the plane only.
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/**
 * The policy over the nodes as they are, read at most once per `refreshMs` (a page load asks for
 * index.html and a dozen assets). A node added meanwhile plays in pages loaded after that; when
 * the read fails (the database away) the last policy stays, else the plane's origin alone.
 */
export class ConsolePolicy {
  private cached: { at: number; value: string } | null = null;
  private pending: Promise<string> | null = null;

  constructor(
    private readonly nodes: NodeOrigins | undefined,
    private readonly clock: Clock,
    private readonly refreshMs = 5_000,
  ) {}

  current(): Promise<string> {
    if (!this.nodes) return Promise.resolve(contentPolicy([]));
    const now = this.clock.now();
    if (this.cached && now - this.cached.at < this.refreshMs) return Promise.resolve(this.cached.value);
    this.pending ??= this.nodes
      .origins()
      .then(
        (origins) => contentPolicy(origins),
        () => this.cached?.value ?? contentPolicy([]),
      )
      .then((value) => {
        this.cached = { at: now, value };
        return value;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }
}
