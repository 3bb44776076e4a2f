import { describe, expect, it } from 'vitest';
import {
  Broadcaster,
  MAX_CACHED_BYTES,
  SLOW_VIEWER_BYTES,
  type LiveSocket,
} from '../../../../src/node/media/live-ws/broadcaster.js';

/** A viewer's socket: records what it is sent; its queue is set by the test. */
class FakeSocket implements LiveSocket {
  bufferedAmount = 0;
  readonly sent: string[] = [];
  send(data: Buffer): void {
    this.sent.push(data.toString());
  }
}

const init = (name: string) => ({ kind: 'init' as const, data: Buffer.from(name) });
const frag = (name: string, key = false) => ({ kind: 'fragment' as const, data: Buffer.from(name), key });

/** A broadcaster that has had init, a key fragment K1 and deltas d1, d2. */
function running(): Broadcaster {
  const b = new Broadcaster();
  b.push(init('I1'));
  b.push(frag('K1', true));
  b.push(frag('d1'));
  b.push(frag('d2'));
  return b;
}

describe('Broadcaster', () => {
  it('a new viewer gets the init segment, then the fragments since the last key frame, then live ones', () => {
    const b = running();
    b.push(frag('K2', true));
    b.push(frag('d3'));
    const v = new FakeSocket();
    b.add(v);
    expect(v.sent).toEqual(['I1', 'K2', 'd3']);
    b.push(frag('d4'));
    expect(v.sent).toEqual(['I1', 'K2', 'd3', 'd4']);
    expect(b.stats(v)).toEqual({ sent: 4, skipped: 0 });
  });

  it('a viewer that joins before any fragment starts at the first key frame', () => {
    const b = new Broadcaster();
    const v = new FakeSocket();
    b.add(v);
    expect(v.sent).toEqual([]);
    b.push(frag('x', true)); // before any init: nothing to decode it with
    b.push(init('I1'));
    b.push(frag('d0'));
    b.push(frag('K1', true));
    b.push(frag('d1'));
    expect(v.sent).toEqual(['I1', 'K1', 'd1']);
  });

  it('a slow viewer skips to the next key frame and resumes; others are not held back', () => {
    const b = running();
    const slow = new FakeSocket();
    const quick = new FakeSocket();
    b.add(slow);
    b.add(quick);
    slow.bufferedAmount = SLOW_VIEWER_BYTES + 1;
    b.push(frag('d3'));
    // Drained again, but d4 depends on the skipped d3: still skipped until a key frame.
    slow.bufferedAmount = 0;
    b.push(frag('d4'));
    b.push(frag('K2', true));
    b.push(frag('d5'));
    expect(slow.sent).toEqual(['I1', 'K1', 'd1', 'd2', 'K2', 'd5']);
    expect(quick.sent).toEqual(['I1', 'K1', 'd1', 'd2', 'd3', 'd4', 'K2', 'd5']);
    expect(b.stats(slow)).toEqual({ sent: 6, skipped: 2 });
  });

  it('a viewer still above the bound at the key frame waits for the one after', () => {
    const b = running();
    const v = new FakeSocket();
    b.add(v);
    v.bufferedAmount = SLOW_VIEWER_BYTES * 2;
    b.push(frag('K2', true));
    b.push(frag('d3'));
    v.bufferedAmount = SLOW_VIEWER_BYTES; // at the bound is not above it
    b.push(frag('d4'));
    b.push(frag('K3', true));
    expect(v.sent).toEqual(['I1', 'K1', 'd1', 'd2', 'K3']);
  });

  it('an ingest restart (new init segment) is sent to every viewer, who resume at its first key frame', () => {
    const b = running();
    const a = new FakeSocket();
    const c = new FakeSocket();
    b.add(a);
    b.add(c);
    b.reset(); // the ingest's ffmpeg exited
    const late = new FakeSocket();
    b.add(late); // nothing stale is sent
    expect(late.sent).toEqual([]);
    b.push(init('I2'));
    b.push(frag('K1b', true));
    b.push(frag('d1b'));
    for (const v of [a, c]) expect(v.sent).toEqual(['I1', 'K1', 'd1', 'd2', 'I2', 'K1b', 'd1b']);
    expect(late.sent).toEqual(['I2', 'K1b', 'd1b']);
    const next = new FakeSocket();
    b.add(next);
    expect(next.sent).toEqual(['I2', 'K1b', 'd1b']);
  });

  it('a removed viewer is sent nothing more', () => {
    const b = running();
    const v = new FakeSocket();
    b.add(v);
    b.remove(v);
    b.push(frag('d3'));
    expect(v.sent).toEqual(['I1', 'K1', 'd1', 'd2']);
    expect(b.viewerCount).toBe(0);
    expect(b.stats(v)).toBeNull();
  });

  it('does not keep more than its bound of fragments for new viewers', () => {
    const b = new Broadcaster();
    b.push(init('I1'));
    b.push({ kind: 'fragment', data: Buffer.alloc(MAX_CACHED_BYTES - 10), key: true });
    b.push(frag('this one goes past the bound'));
    const v = new FakeSocket();
    b.add(v);
    expect(v.sent).toEqual(['I1']);
    b.push(frag('d'));
    b.push(frag('K', true));
    expect(v.sent).toEqual(['I1', 'K']);
  });
});
