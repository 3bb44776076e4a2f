import { sseComment, sseFrame } from '../../common/sse.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../common/clock.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';

export interface LiveLimits {
  globalCapacity: number;
  perPrincipal: number;
  heartbeatMs: number;
  /**
   * A subscriber whose socket holds more than this unsent is lagging: its stream is ended
   * (terminal resync) rather than buffered without bound in the plane's memory.
   */
  lagBytes: number;
}

/** How long a lagging stream that was ended may take to drain before its socket is destroyed. */
const LAGGING_GRACE_MS = 1000;

/** One SSE event as written: an `id:` line and a `data:` line of JSON already encoded (the one SSE frame format). */
export function sseEvent(id: string | number, json: string): string {
  return sseFrame(json, { id });
}

/**
 * One live SSE stream: `id:` and `data:` lines only, `:` heartbeats, and an end when the
 * client goes, the session expires, the user's sessions are revoked or the keys rotate.
 */
export class LiveStream {
  private ended = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly closeHandlers: Array<() => void> = [];

  constructor(
    readonly principal: Principal,
    private readonly reply: FastifyReply,
    private readonly lagBytes: number,
  ) {}

  get closed(): boolean {
    return this.ended;
  }

  /** True when the client reads slower than frames arrive. */
  get lagging(): boolean {
    return this.reply.raw.writableLength > this.lagBytes;
  }

  send(id: string | number, data: unknown): void {
    this.write(sseEvent(id, JSON.stringify(data)));
  }

  /**
   * A frame whose JSON is already encoded (one encoding shared by every stream that gets it).
   * Writes until the end of this turn of the event loop are corked together (setImmediate, not
   * nextTick: every notice read in one poll phase then leaves in one write per socket; on
   * bench/plane/event-stream.ts this took p99 from 730 to 230-310 ms at 1,000 streams).
   */
  sendEncoded(id: string, json: string): void {
    if (this.ended) return;
    if (!this.corked) {
      this.corked = true;
      this.reply.raw.cork();
      setImmediate(() => {
        this.corked = false;
        this.reply.raw.uncork();
      });
    }
    this.reply.raw.write(sseEvent(id, json));
  }

  private corked = false;

  /** Frames already laid out as SSE text; the same buffer goes to every stream of an audience. */
  sendShared(buf: Buffer): void {
    if (this.ended) return;
    this.reply.raw.write(buf);
  }

  comment(text: string): void {
    this.write(text ? `: ${text}\n` : ':\n\n');
  }

  /** Ends the stream, optionally after a terminal comment such as `resync-required`. */
  end(terminalComment?: string): void {
    if (this.ended) return;
    const stuck = this.lagging;
    if (terminalComment) this.write(sseComment(terminalComment));
    this.finish();
    this.reply.raw.end();
    // A client that stopped reading would otherwise keep the socket, and the megabyte queued for
    // it in this process, for as long as it likes: it gets a moment to drain, then the cut.
    if (stuck) {
      const cut = setTimeout(() => this.reply.raw.destroy(), LAGGING_GRACE_MS);
      cut.unref();
      this.reply.raw.once('finish', () => clearTimeout(cut));
    }
  }

  onClose(fn: () => void): void {
    this.closeHandlers.push(fn);
  }

  /** @internal */ addTimer(t: NodeJS.Timeout): void {
    this.timers.push(t);
  }

  /** @internal */ finish(): void {
    if (this.ended) return;
    this.ended = true;
    for (const t of this.timers) {
      clearTimeout(t);
      clearInterval(t);
    }
    for (const fn of this.closeHandlers.splice(0)) fn();
  }

  private write(text: string): void {
    if (this.ended) return;
    this.reply.raw.write(text);
  }
}

/** Capacity and lifetime of every live stream of the process (document 1, shared SSE rules). */
export class LiveStreams {
  private readonly open = new Set<LiveStream>();
  private readonly perPrincipal = new Map<string, number>();

  constructor(
    private readonly limits: LiveLimits,
    private readonly clock: Clock,
  ) {}

  get count(): number {
    return this.open.size;
  }

  /** The resume point: the Last-Event-ID header wins over the `last_event_id` parameter. */
  static resumePoint(req: FastifyRequest, queryValue: string | undefined): string | undefined {
    const header = req.headers['last-event-id'];
    if (typeof header === 'string' && header !== '') return header;
    return queryValue;
  }

  /** Takes a slot (or throws 429) and starts the SSE response. */
  start(req: FastifyRequest, reply: FastifyReply, principal: Principal): LiveStream {
    if (this.open.size >= this.limits.globalCapacity) throw errors.liveStreamCapacity('global');
    const mine = this.perPrincipal.get(principal.userId) ?? 0;
    if (mine >= this.limits.perPrincipal) throw errors.liveStreamCapacity('principal');

    const stream = new LiveStream(principal, reply, this.limits.lagBytes);
    this.open.add(stream);
    this.perPrincipal.set(principal.userId, mine + 1);
    stream.onClose(() => {
      this.open.delete(stream);
      const n = (this.perPrincipal.get(principal.userId) ?? 1) - 1;
      if (n <= 0) this.perPrincipal.delete(principal.userId);
      else this.perPrincipal.set(principal.userId, n);
    });

    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    reply.raw.flushHeaders();
    req.raw.socket.setNoDelay(true);
    // The slot is freed when the body closes, whoever closes it.
    reply.raw.on('close', () => stream.finish());

    const heartbeat = setInterval(() => stream.comment(''), this.limits.heartbeatMs);
    heartbeat.unref();
    stream.addTimer(heartbeat);
    // An SSE body does not extend the token: the stream ends with the session.
    const left = principal.expiresAt - this.clock.now();
    const expiry = setTimeout(() => stream.end(), Math.max(0, Math.min(left, 2 ** 31 - 1)));
    expiry.unref();
    stream.addTimer(expiry);
    return stream;
  }

  endWhere(match: (p: Principal) => boolean): void {
    for (const s of [...this.open]) if (match(s.principal)) s.end();
  }

  endAll(): void {
    for (const s of [...this.open]) s.end();
  }
}
