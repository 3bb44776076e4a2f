import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { LiveFeeds, type LiveViewerSocket } from '../../../../src/node/media/live-ws/live-feeds.js';
import { ViewerSessions } from '../../../../src/node/media/viewer/sessions.service.js';

/** A viewer's socket: records what it is sent and how it was closed. */
class FakeSocket implements LiveViewerSocket {
  bufferedAmount = 0;
  readonly sent: string[] = [];
  closed: number | null = null;
  send(data: Buffer): void {
    this.sent.push(data.toString('latin1', 4, 8));
  }
  close(code: number): void {
    this.closed = code;
  }
}

function box(type: string, payload = Buffer.alloc(0)): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(8 + payload.length);
  b.write(type, 4, 'latin1');
  return Buffer.concat([b, payload]);
}
const init = Buffer.concat([box('ftyp'), box('moov')]);
/** A fragment whose moof says nothing of its samples: a key frame. */
const fragment = Buffer.concat([box('prft'), box('moof'), box('mdat', Buffer.alloc(3))]);

const log = pino({ level: 'silent' });
const tick = () => new Promise((r) => setImmediate(r));

describe('LiveFeeds', () => {
  it('reads each run’s pipe into the stream’s broadcaster; an older run still draining is ignored', async () => {
    const feeds = new LiveFeeds(log);
    const v = new FakeSocket();
    feeds.add('cam1', v);
    const run1 = new PassThrough();
    feeds.source('cam1', run1, 1);
    run1.write(init.subarray(0, 5));
    run1.write(Buffer.concat([init.subarray(5), fragment]));
    await tick();
    expect(v.sent).toEqual(['ftyp', 'prft']);
    const run2 = new PassThrough();
    feeds.source('cam1', run2, 2);
    run1.write(fragment); // the old ffmpeg's last bytes
    run2.write(Buffer.concat([init, fragment]));
    await tick();
    expect(v.sent).toEqual(['ftyp', 'prft', 'ftyp', 'prft']);
    expect(feeds.viewers('cam1')).toBe(1);
    feeds.remove('cam1', v);
    expect(feeds.viewers('cam1')).toBe(0);
    feeds.close();
  });

  it('keeps draining a pipe that is not MP4, sending nothing', async () => {
    const feeds = new LiveFeeds(log);
    const v = new FakeSocket();
    feeds.add('cam1', v);
    const out = new PassThrough();
    feeds.source('cam1', out, 1);
    out.write(Buffer.from('\0\0\0\u0002junk'));
    out.write(Buffer.concat([init, fragment]));
    await tick();
    expect(v.sent).toEqual([]);
    // Drained: nothing is left waiting in the pipe for ffmpeg to block on.
    expect(out.readableLength).toBe(0);
    feeds.close();
  });

  it('a viewer joining after the run ended gets nothing stale; the node’s stop closes viewers with 1001', async () => {
    const feeds = new LiveFeeds(log);
    const out = new PassThrough();
    feeds.source('cam1', out, 1);
    out.end(Buffer.concat([init, fragment]));
    await new Promise((r) => out.once('close', r));
    const late = new FakeSocket();
    feeds.add('cam1', late);
    expect(late.sent).toEqual([]);
    feeds.close();
    expect(late.closed).toBe(1001);
  });
});

describe('ViewerSessions.open (a ws viewer)', () => {
  it('is listed and counted while open, whatever the idle time, and gone when closed', () => {
    let now = 1000;
    const sessions = new ViewerSessions(() => now, 10);
    const close = sessions.open({
      id: 's1',
      stream: 'cam1',
      protocol: 'ws',
      client_ip: '127.0.0.1',
      user_agent: 'x'.repeat(600),
      sub: 'u',
      subject_kind: null,
      subject_name: null,
      camera_id: null,
    });
    now += 60_000;
    expect(sessions.count('cam1')).toBe(1);
    const [row] = sessions.list();
    expect(row).toMatchObject({ id: 's1', protocol: 'ws', started_ms: 1000 });
    expect(row.user_agent).toHaveLength(512);
    close();
    close();
    expect(sessions.list()).toEqual([]);
  });
});
