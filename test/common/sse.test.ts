import { describe, expect, it } from 'vitest';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { sseComment, sseFrame } from '../../src/common/sse.js';

function parse(text: string): EventSourceMessage[] {
  const out: EventSourceMessage[] = [];
  const p = createParser({ onEvent: (m) => out.push(m) });
  p.feed(text);
  return out;
}

describe('the SSE writer', () => {
  it('writes the fields the plane and the node send, in the bytes they always sent', () => {
    expect(sseFrame('{"a":1}', { id: 'g:42' })).toBe('id: g:42\ndata: {"a":1}\n\n');
    expect(sseFrame('{"a":1}', { event: 'snapshot' })).toBe('event: snapshot\ndata: {"a":1}\n\n');
    expect(sseComment('resync-required')).toBe(': resync-required\n\n');
  });

  it('keeps a newline inside a value from starting another field or frame', () => {
    const frames = parse(sseFrame('x\ndata: forged\r\nid: 9', { id: '1\nevent: evil', event: 'e\rid: 2' }));
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ id: '1 event: evil', event: 'e id: 2', data: 'x data: forged id: 9' });
    expect(parse(sseComment('a\n\ndata: forged'))).toEqual([]);
  });
});
