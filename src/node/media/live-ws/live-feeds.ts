import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { Broadcaster, type LiveSocket } from './broadcaster.js';
import { Fmp4Error, Fmp4Parser } from './fmp4-boxes.js';

/**
 * A stream whose ingest ended and did not start again within this long (more than the longest
 * restart back-off, 30 s) is gone (deleted, or parked with nobody left): its viewers are closed.
 */
export const SOURCE_GONE_MS = 45_000;
/** WebSocket close code "going away": the stream stopped serving, or the node stops. */
const GOING_AWAY = 1001;

/** A viewer's socket as the feeds use it: the broadcaster's part and a way to end it. */
export interface LiveViewerSocket extends LiveSocket {
  close(code: number, reason: string): void;
}

interface Feed {
  broadcaster: Broadcaster;
  /** The current run's pipe; data of an older run still draining is ignored. */
  source: Readable | null;
  viewers: Set<LiveViewerSocket>;
  goneTimer: NodeJS.Timeout | null;
}

/**
 * Every stream's live fMP4: the pipeline hands each ingest run's pipe here (built before the
 * pipeline, which the WebSocket service then uses: neither needs the other at construction). The
 * pipe is cut into boxes and handed to the stream's one broadcaster, which its viewers are attached to.
 */
export class LiveFeeds {
  private readonly feeds = new Map<string, Feed>();

  constructor(private readonly log: Logger) {}

  /** Each ingest run's fMP4 pipe; it is read at once and to its end. */
  source(stream: string, out: Readable, run: number): void {
    const feed = this.feed(stream);
    if (feed.goneTimer) clearTimeout(feed.goneTimer);
    feed.goneTimer = null;
    feed.source = out;
    const parser = new Fmp4Parser();
    let broken = false;
    out.on('data', (chunk: Buffer) => {
      // Read even when unusable: ffmpeg would block on a full pipe, and HLS with it.
      if (broken || feed.source !== out) return;
      try {
        for (const piece of parser.push(chunk)) feed.broadcaster.push(piece);
      } catch (err) {
        if (!(err instanceof Fmp4Error)) throw err;
        broken = true;
        this.log.warn(
          { stream, run, err: err.message },
          'live fMP4 unreadable: WebSocket viewers get nothing until the ingest restarts',
        );
      }
    });
    out.on('error', () => undefined);
    out.once('close', () => {
      if (feed.source !== out) return;
      feed.source = null;
      feed.broadcaster.reset();
      feed.goneTimer = setTimeout(() => this.gone(stream, feed), SOURCE_GONE_MS);
      feed.goneTimer.unref();
    });
  }

  add(stream: string, socket: LiveViewerSocket): void {
    const feed = this.feed(stream);
    feed.viewers.add(socket);
    feed.broadcaster.add(socket);
  }

  remove(stream: string, socket: LiveViewerSocket): void {
    const feed = this.feeds.get(stream);
    if (!feed) return;
    feed.viewers.delete(socket);
    feed.broadcaster.remove(socket);
  }

  /** WebSocket viewers of `stream` right now. */
  viewers(stream: string): number {
    return this.feeds.get(stream)?.viewers.size ?? 0;
  }

  /** At stop: every viewer is told the node is going away. */
  close(): void {
    for (const [stream, feed] of this.feeds) this.gone(stream, feed, 'the node is stopping');
  }

  private gone(stream: string, feed: Feed, reason = 'the stream stopped serving'): void {
    if (feed.goneTimer) clearTimeout(feed.goneTimer);
    feed.goneTimer = null;
    for (const socket of [...feed.viewers]) {
      feed.viewers.delete(socket);
      feed.broadcaster.remove(socket);
      socket.close(GOING_AWAY, reason);
    }
    if (!feed.source) this.feeds.delete(stream);
  }

  private feed(stream: string): Feed {
    let feed = this.feeds.get(stream);
    if (!feed) {
      feed = { broadcaster: new Broadcaster(), source: null, viewers: new Set(), goneTimer: null };
      this.feeds.set(stream, feed);
    }
    return feed;
  }
}
