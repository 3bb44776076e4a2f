/**
 * Lets a sender start at most once every `everyMs` (monotonic time): a quiet sender goes at once,
 * a busy one waits out the rest of the interval, so that what queued meanwhile goes together
 * (the event notices, the delivery workers' wakes).
 */
export class Pace {
  private last = -Infinity;

  constructor(private readonly everyMs: number) {}

  /** Resolves when the next send may start, and counts it as started. */
  async turn(): Promise<void> {
    const wait = this.last + this.everyMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, Math.ceil(wait)));
    this.last = performance.now();
  }
}
