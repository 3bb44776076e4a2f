import { describe, expect, it } from 'vitest';
import { EDGE, edgeStep, liveWsUrl, trimRange, WallClockMap } from '../../../web/src/lib/ws-live.js';

describe('liveWsUrl', () => {
  it("turns the play answer's playlist into the node's live socket, the token as a query", () => {
    expect(liveWsUrl('http://127.0.0.1:8081/cam-1_main/index.m3u8', 'a.b+c/=')).toBe(
      'ws://127.0.0.1:8081/cam-1_main/live.ws?token=a.b%2Bc%2F%3D',
    );
    expect(liveWsUrl('https://node.example:8443/base/cam-1_sub/index.m3u8?x=1#f', 't')).toBe(
      'wss://node.example:8443/base/cam-1_sub/live.ws?token=t',
    );
  });

  it('reads a relative URL against the base, and refuses what is no live playlist', () => {
    expect(liveWsUrl('/cam/index.m3u8', 't', 'https://plane.example/live')).toBe(
      'wss://plane.example/cam/live.ws?token=t',
    );
    expect(liveWsUrl('http://n/cam/index-1700000000-60.m3u8', 't')).toBeNull();
    expect(liveWsUrl('ftp://n/cam/index.m3u8', 't')).toBeNull();
    expect(liveWsUrl('not a url', 't')).toBeNull();
  });
});

describe('WallClockMap', () => {
  it('maps a media time to the newest point at or before it, plus the time elapsed since', () => {
    const m = new WallClockMap();
    m.add(10, 1_000_000);
    m.add(10.1, 1_000_100);
    m.add(12, 1_002_050); // a gap: the producer's clock, not the media's, is the truth at each point
    expect(m.at(9.99)).toBeNull();
    expect(m.at(10)).toBe(1_000_000);
    expect(m.at(10.05)).toBeCloseTo(1_000_050, 6);
    expect(m.at(10.1)).toBe(1_000_100);
    expect(m.at(11.9)).toBeCloseTo(1_001_900, 6);
    expect(m.at(12.5)).toBeCloseTo(1_002_550, 6);
  });

  it('forgets the points after a jump back in media time (a restarted producer)', () => {
    const m = new WallClockMap();
    m.add(100, 5000);
    m.add(101, 6000);
    m.add(0.5, 9000);
    expect(m.size).toBe(1);
    expect(m.at(100.5)).toBeCloseTo(109_000, 6);
    expect(m.at(0.4)).toBeNull();
  });

  it('keeps at most its bound of points, the newest', () => {
    const m = new WallClockMap(3);
    for (let i = 0; i < 10; i++) m.add(i, i * 1000);
    expect(m.size).toBe(3);
    expect(m.at(6.5)).toBeNull();
    expect(m.at(7)).toBe(7000);
  });

  it('is empty at first', () => {
    expect(new WallClockMap().at(0)).toBeNull();
  });
});

describe('edgeStep', () => {
  it('seeks to just before the end once the playhead lags past the jump', () => {
    expect(edgeStep(EDGE.jump + 0.01, 1)).toEqual({ seekBack: EDGE.target, rate: 1 });
    expect(edgeStep(30, EDGE.fastRate)).toEqual({ seekBack: EDGE.target, rate: 1 });
  });

  it('plays a little faster past the catch-up lag, until back within the target', () => {
    expect(edgeStep(EDGE.catchUp + 0.01, 1)).toEqual({ seekBack: null, rate: EDGE.fastRate });
    // between target and catch-up the speed stays as it is: faster while catching up, else normal
    expect(edgeStep((EDGE.target + EDGE.catchUp) / 2, EDGE.fastRate)).toEqual({ seekBack: null, rate: EDGE.fastRate });
    expect(edgeStep((EDGE.target + EDGE.catchUp) / 2, 1)).toEqual({ seekBack: null, rate: 1 });
    expect(edgeStep(EDGE.target, EDGE.fastRate)).toEqual({ seekBack: null, rate: 1 });
  });

  it('keeps the whole lag, encoder and network aside, under a second', () => {
    expect(EDGE.target).toBeLessThan(EDGE.catchUp);
    expect(EDGE.catchUp).toBeLessThan(1);
    expect(EDGE.jump).toBeGreaterThan(EDGE.catchUp);
  });
});

describe('trimRange', () => {
  it('removes what is more than keepSecs behind the playhead, once a second of it has piled up', () => {
    expect(trimRange(100, 103.9, 3)).toBeNull();
    const [from, to] = trimRange(100, 104.2, 3)!;
    expect(from).toBe(100);
    expect(to).toBeCloseTo(101.2, 9);
    expect(trimRange(100, 100.5, 3)).toBeNull();
  });
});
