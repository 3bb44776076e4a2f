import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseHandlers {
  frame(data: string, id: string | undefined): void;
  /** a comment line (`: resync-required`, `: delivery=replay`) */
  comment?(text: string): void;
}

/**
 * An SSE stream read with fetch (EventSource cannot send the bearer header), parsed by
 * eventsource-parser. Resolves when the stream ends; rejects on a refused request.
 */
export async function readSse(url: string, token: string, handlers: SseHandlers, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
  if (!res.ok || !res.body) throw new Error(`stream ${res.status}`);
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => handlers.frame(m.data, m.id),
    onComment: (c: string) => handlers.comment?.(c.trim()),
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}
