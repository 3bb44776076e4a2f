import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, CANARY, type TestPlane } from '../harness.js';
import { login, type Client } from '../client.js';
import { SseReader } from '../sse-client.js';

// GET /api/v1/logs/plane/stream (document 1): the live tail with the page's filter, replay of the
// matching entries above the resume point oldest first, header over query, reset above the head, 429.
let t: TestPlane;
let root: Client;
let base: string;
const open: SseReader[] = [];

beforeAll(async () => {
  t = await startPlane({
    config: { live: { globalCapacity: 1024, perPrincipal: 3, heartbeatMs: 200, ringSize: 8192, lagBytes: 1 << 20 } },
  });
  base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  root = await login(t.plane.app);
});
afterAll(async () => {
  for (const r of open) r.close();
  await t?.close();
});

const tail = async (query: string, headers: Record<string, string> = {}) => {
  const r = await SseReader.open(`${base}/api/v1/logs/plane/stream${query}`, {
    authorization: `Bearer ${root.token}`,
    ...headers,
  });
  open.push(r);
  return r;
};
const done = (r: SseReader) => {
  r.close();
  open.splice(open.indexOf(r), 1);
};
const log = () => t.plane.app.log;

describe('GET /api/v1/logs/plane/stream', () => {
  it('replays the matching entries above the resume point oldest first, then live ones; id = seq', async () => {
    const child = log().child({ part: 'tailtest' });
    child.info('tail-a');
    child.warn('tail-b');
    child.error('tail-c');
    const head = t.plane.services.logs.page({ q: 'tail-a' }).entries[0]!.seq;
    const r = await tail(`?target=argus_plane::tailtest&last_event_id=${head - 1}`);
    expect(r.status).toBe(200);
    expect(r.headers!.get('content-type')).toMatch(/^text\/event-stream/);
    await r.until((x) => x.events.length >= 3);
    expect(r.events.map((e) => e.data.message)).toEqual(['tail-a', 'tail-b', 'tail-c']);
    for (const e of r.events) expect(e.id).toBe(String(e.data.seq));
    child.info('tail-d');
    log().info('tail-other-target');
    await r.until((x) => x.events.length >= 4);
    expect(r.events.map((e) => e.data.message)).toEqual(['tail-a', 'tail-b', 'tail-c', 'tail-d']);
    expect(r.raw).not.toMatch(/^event:/m);
    done(r);
  });

  it('applies level and q to replay and live; after and limit are ignored', async () => {
    const child = log().child({ part: 'tailfilter' });
    child.info('FLT one');
    child.warn('flt two');
    const r = await tail('?target=argus_plane::tailfilter&level=warn&q=FlT&after=999999&limit=1&last_event_id=0');
    await r.until((x) => x.events.length >= 1);
    child.error('flt three');
    child.info('flt four');
    child.error('other five');
    await r.until((x) => x.events.length >= 2);
    expect(r.events.map((e) => e.data.message)).toEqual(['flt two', 'flt three']);
    done(r);
  });

  it('the Last-Event-ID header wins over the last_event_id parameter', async () => {
    const child = log().child({ part: 'hdr' });
    child.info('hdr-1');
    child.info('hdr-2');
    const [second, first] = t.plane.services.logs.page({ target: 'argus_plane::hdr' }).entries;
    const r = await tail(`?target=argus_plane::hdr&last_event_id=0`, { 'last-event-id': String(first!.seq) });
    await r.until((x) => x.events.length >= 1);
    child.info('hdr-3');
    await r.until((x) => x.events.length >= 2);
    expect(r.events.map((e) => e.data.message)).toEqual(['hdr-2', 'hdr-3']);
    expect(r.events[0]!.data.seq).toBe(second!.seq);
    done(r);
  });

  it('a resume point above the head, or unparseable, replays from 0', async () => {
    log().child({ part: 'reset' }).info('reset-1');
    const big = await tail('?target=argus_plane::reset', { 'last-event-id': '99999999' });
    await big.until((x) => x.events.length >= 1);
    expect(big.events[0]!.data.message).toBe('reset-1');
    done(big);
    const junk = await tail('?target=argus_plane::reset&last_event_id=abc');
    await junk.until((x) => x.events.length >= 1);
    expect(junk.events[0]!.data.message).toBe('reset-1');
    done(junk);
  });

  it('scrubs what it streams', async () => {
    const r = await tail('?target=argus_plane::leak');
    log()
      .child({ part: 'leak' })
      .warn({ password: CANARY }, `connect postgres://argus:${CANARY}@db/argus token=${CANARY}`);
    await r.until((x) => x.events.length >= 1);
    expect(r.raw).toContain('[redacted]');
    expect(r.raw).not.toContain(CANARY);
    done(r);
  });

  it('sends a heartbeat comment (a bare colon) while nothing matches', async () => {
    const r = await tail('?target=argus_plane::nothing-logs-here');
    await r.until((x) => x.comments.includes(''));
    expect(r.events).toEqual([]);
    expect(r.raw).toMatch(/^:\n\n/m);
    done(r);
  });

  it('400 log_filter_too_long for target or q past 128 characters', async () => {
    for (const q of [`?target=${'x'.repeat(129)}`, `?q=${'x'.repeat(129)}`]) {
      const r = await root.get(`/api/v1/logs/plane/stream${q}`);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: 'log_filter_too_long' });
    }
  });

  it('429 live_stream_capacity past the per-user capacity, with Retry-After: 2', async () => {
    const streams = [await tail(''), await tail(''), await tail('')];
    const over = await tail('');
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: 'live_stream_capacity', scope: 'principal', retry_after: 2 });
    expect(over.headers!.get('retry-after')).toBe('2');
    for (const s of streams) done(s);
  });
});
