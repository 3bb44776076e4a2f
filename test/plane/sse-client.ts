import { createParser } from 'eventsource-parser';

export interface SseItem {
  kind: 'event';
  id: string | undefined;
  data: any;
  replay: boolean;
  raw: string;
}
export interface SseComment {
  kind: 'comment';
  text: string;
}

/**
 * Reads an SSE response over a real socket: every frame and comment in order, the raw text
 * (to check that no `event:` line is ever sent) and whether the server ended the body.
 */
export class SseReader {
  readonly items: Array<SseItem | SseComment> = [];
  raw = '';
  ended = false;
  status = 0;
  headers: Headers | null = null;
  body: any = null;
  private readonly abort = new AbortController();
  private waiters: Array<() => void> = [];
  private pendingReplay = false;

  static async open(url: string, headers: Record<string, string>): Promise<SseReader> {
    const r = new SseReader();
    const res = await fetch(url, { headers, signal: r.abort.signal });
    r.status = res.status;
    r.headers = res.headers;
    if (res.status !== 200) {
      r.body = await res.json().catch(() => null);
      r.ended = true;
      return r;
    }
    const parser = createParser({
      onEvent: (e) => {
        r.items.push({ kind: 'event', id: e.id, data: JSON.parse(e.data), replay: r.pendingReplay, raw: e.data });
        r.pendingReplay = false;
        r.wake();
      },
      onComment: (c) => {
        const text = c.trim();
        if (text === 'delivery=replay') r.pendingReplay = true;
        r.items.push({ kind: 'comment', text });
        r.wake();
      },
    });
    void (async () => {
      try {
        const decoder = new TextDecoder();
        for await (const chunk of res.body as any as AsyncIterable<Uint8Array>) {
          const text = decoder.decode(chunk, { stream: true });
          r.raw += text;
          parser.feed(text);
        }
      } catch {
        /* aborted */
      }
      r.ended = true;
      r.wake();
    })();
    return r;
  }

  get events(): SseItem[] {
    return this.items.filter((i): i is SseItem => i.kind === 'event');
  }
  get comments(): string[] {
    return this.items.filter((i): i is SseComment => i.kind === 'comment').map((c) => c.text);
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until `pred` holds (checked after every item) or fails after `ms`. */
  // A bound for a hang, not a speed: a loaded CI machine missed 5 s.
  async until(pred: (r: SseReader) => boolean, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred(this)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`SSE wait timed out; got ${JSON.stringify(this.items).slice(0, 500)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 100));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.abort.abort();
  }
}
