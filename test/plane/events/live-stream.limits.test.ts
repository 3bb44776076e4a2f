import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { login } from '../client.js';
import { SseReader } from '../sse-client.js';
import { untilMidnightUtc } from '../../../src/plane/events/stream/stream.service.js';
import { clock, liveStreamWorld, modA, open, send, t, x } from './live-stream.helpers.js';

// GET /api/v1/events/stream's limits: a lagging subscriber, midnight UTC, streams per user and per process.
liveStreamWorld();

describe('GET /api/v1/events/stream', () => {
  it('ends a lagging subscriber with a terminal resync-required', async () => {
    const me = await login(t.plane.app);
    const principal = await t.plane.services.auth.authenticate(me.token!, { ip: '127.0.0.1', userAgent: 'test' });
    const chunks: string[] = [];
    const raw = new Writable({
      highWaterMark: 1,
      write(chunk, _e, _cb) {
        chunks.push(String(chunk));
      },
    }) as any;
    raw.writeHead = () => raw;
    raw.flushHeaders = () => {};
    await t.plane.services.events.stream.stream(
      { headers: {}, raw: { socket: { setNoDelay() {} } } } as any,
      { raw, hijack() {} } as any,
      principal,
      {},
    );
    for (let i = 0; i < 20 && !raw.writableEnded; i++)
      await send(
        modA,
        Array.from({ length: 100 }, () => ({ detector: 'lag', subject_ref: 'y'.repeat(200) })),
      );
    await new Promise((r) => setTimeout(r, 200));
    expect(raw.writableEnded).toBe(true);
    const queued = (raw._writableState.getBuffer() as Array<{ chunk: unknown }>).map((b) => String(b.chunk));
    expect([...chunks, ...queued].join('')).toMatch(/: resync-required\n\n$/);
    // its slot is free again
    expect(
      [...(t.plane.services.streams as any).open].some(
        (x: any) => x.principal.sessionId === principal.sessionId && !x.closed,
      ),
    ).toBe(false);
  });

  it('ends at midnight UTC by the plane clock', async () => {
    const real = clock.now();
    clock.set(real + untilMidnightUtc(real) - 300);
    try {
      const s = await open(await login(t.plane.app));
      expect(s.status).toBe(200);
      await s.until((r) => r.ended, 3000);
      expect(s.raw).not.toContain('resync-required');
    } finally {
      clock.set(real);
    }
    expect(untilMidnightUtc(Date.UTC(2026, 0, 15, 23, 59, 59, 900))).toBe(100);
    expect(untilMidnightUtc(Date.UTC(2026, 0, 16))).toBe(86_400_000);
  });

  it('caps streams at 32 per user (live_stream_capacity)', async () => {
    const me = x.b.operator;
    const all: SseReader[] = [];
    for (let i = 0; i < 32; i++) all.push(await open(me));
    const over = await open(me);
    expect([over.status, over.body, over.headers!.get('retry-after')]).toEqual([
      429,
      { error: 'live_stream_capacity', scope: 'principal', retry_after: 2 },
      '2',
    ]);
    // a slot is freed when the response body closes
    all.pop()!.close();
    let again: SseReader | null = null;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await open(me);
    }
    expect(again!.status).toBe(200);
    all.push(again!);
    // the process capacity (64 in this test) counts every principal's streams
    const streams = t.plane.services.streams;
    const others: SseReader[] = [];
    for (let i = 0; i < 32 && streams.count < 64; i++) others.push(await open(x.b.admin));
    expect(streams.count).toBe(64);
    const full = await open(x.a.admin);
    expect([full.status, full.body]).toEqual([429, { error: 'live_stream_capacity', scope: 'global', retry_after: 2 }]);
    for (const s of [...all, ...others]) s.close();
  });
});
