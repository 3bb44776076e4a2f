import type { LiveStream } from '../live/sse.js';

/** One open stream of a telemetry feed and the highest number it has been given (or that was superseded). */
interface Subscriber {
  stream: LiveStream;
  sent: number;
  behind: boolean;
}

/**
 * The open streams of one telemetry feed. A batch goes to every subscriber as one shared buffer.
 * A subscriber whose socket holds more than its bound unsent gets nothing more until it has
 * drained; then it is caught up from memory (`catchUp`: what is current above what it was sent),
 * so it never misses a state silently and the plane never queues without bound for it.
 */
export class Audience {
  private readonly subs = new Set<Subscriber>();

  get size(): number {
    return this.subs.size;
  }

  join(stream: LiveStream, sent: number): void {
    const sub: Subscriber = { stream, sent, behind: false };
    this.subs.add(sub);
    stream.onClose(() => this.subs.delete(sub));
  }

  /**
   * `batch`: the SSE text of the frames numbered after `previous` up to `last`; `catchUp(sent)`:
   * the text for a subscriber that was sent only up to `sent`.
   */
  deliver(batch: Buffer, previous: number, last: number, catchUp: (sent: number) => Buffer): void {
    for (const sub of this.subs) {
      if (sub.stream.closed) continue;
      if (sub.stream.lagging) {
        sub.behind = true;
        continue;
      }
      const text = sub.behind || sub.sent < previous ? catchUp(sub.sent) : batch;
      sub.behind = false;
      sub.sent = last;
      if (text.length) sub.stream.sendShared(text);
    }
  }
}
