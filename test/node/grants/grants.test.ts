import { describe, expect, it } from 'vitest';
import { MediaGrants, grantProblem, type GrantRequest } from '../../../src/node/grants/grants.service.js';
import { SessionKeyRing } from '../../../src/node/grants/session-keys.js';

describe('media grant: intent/protocol table', () => {
  it.each([
    [{ stream: 'cam1', intent: 'live', protocols: ['hls'] }, null],
    [
      { stream: 'cam1', intent: 'live', protocols: ['hls', 'webrtc', 'whep', 'llhls', 'dash', 'mse', 'rtsp', 'srt'] },
      null,
    ],
    [{ stream: 'cam1', intent: 'live', protocols: ['hls', 'whip'] }, 'intent live cannot include whip'],
    [{ stream: 'cam1', intent: 'live', protocols: ['api'] }, 'protocols cannot include api'],
    [{ stream: 'cam1', intent: 'live', protocols: [] }, 'protocols must hold 1 to 8 values'],
    [{ stream: 'cam1', intent: 'live', protocols: ['hls', 'hls'] }, 'protocols must be unique'],
    [{ stream: 'cam1', intent: 'live', protocols: ['gopher'] }, 'unknown protocol "gopher"'],
    [{ stream: 'cam1', intent: 'publish', protocols: ['whip'] }, null],
    [{ stream: 'cam1', intent: 'publish', protocols: ['whip', 'hls'] }, 'intent publish must have exactly ["whip"]'],
    [{ stream: 'cam1', intent: 'publish', protocols: ['hls'] }, 'intent publish must have exactly ["whip"]'],
    ...['dvr', 'preview', 'export', 'timeshift'].flatMap((intent) => [
      [{ stream: 'cam1', intent, protocols: ['hls'] }, null],
      [{ stream: 'cam1', intent, protocols: ['webrtc'] }, `intent ${intent} allows only hls`],
      [{ stream: 'cam1', intent, protocols: ['hls', 'dash'] }, `intent ${intent} allows only hls`],
    ]),
    [{ stream: 'vod/cam1/2026-01-01', intent: 'vod', protocols: ['hls'] }, null],
    [{ stream: 'cam1', intent: 'vod', protocols: ['hls'] }, 'for intent vod the stream must start with vod/'],
    [{ stream: 'vod/x', intent: 'vod', protocols: ['dash'] }, 'intent vod allows only hls'],
    [
      { stream: '../etc', intent: 'live', protocols: ['hls'] },
      'stream must be a stream path (letters, digits, _ . - and / between segments)',
    ],
    [
      { stream: 'a//b', intent: 'live', protocols: ['hls'] },
      'stream must be a stream path (letters, digits, _ . - and / between segments)',
    ],
  ] as Array<[GrantRequest, string | null]>)('%o -> %s', (req, expected) => {
    expect(grantProblem(req)).toBe(expected);
  });
});

describe('media grant token', () => {
  it('is bound to stream, protocol set, address and 300 s', async () => {
    let now = 1_800_000_000_000;
    const grants = new MediaGrants({ now: () => now });
    const g = await grants.issue(
      { stream: 'cam1', intent: 'live', protocols: ['hls', 'webrtc'] },
      '192.0.2.1',
      1_800_043_200,
    );
    expect(g.ttl_secs).toBe(300);
    expect(g.expires_at - g.server_time).toBe(300);
    expect(g.session_expires_at).toBe(1_800_043_200);
    const use = { stream: 'cam1', protocol: 'hls', address: '192.0.2.1' };
    expect(await grants.verify(g.token, use)).not.toBeNull();
    expect(await grants.verify(g.token, { ...use, protocol: 'webrtc' })).not.toBeNull();
    expect(await grants.verify(g.token, { ...use, stream: 'cam2' })).toBeNull();
    expect(await grants.verify(g.token, { ...use, protocol: 'rtsp' })).toBeNull();
    expect(await grants.verify(g.token, { ...use, address: '192.0.2.2' })).toBeNull();
    now += 299_000;
    expect(await grants.verify(g.token, use)).not.toBeNull();
    now += 2_000;
    expect(await grants.verify(g.token, use)).toBeNull();
  });

  it('has a token type of its own and another node key cannot verify it', async () => {
    const clock = { now: () => 1_800_000_000_000 };
    const g = await new MediaGrants(clock).issue({ stream: 'a', intent: 'live', protocols: ['hls'] }, '::1', 0);
    const header = JSON.parse(Buffer.from(g.token.split('.')[0], 'base64url').toString());
    expect(header.typ).toBe('argus-media-grant+jwt');
    expect(await new MediaGrants(clock).verify(g.token, { stream: 'a', protocol: 'hls', address: '::1' })).toBeNull();
  });
});

describe('session ticket keys: verification window of three', () => {
  it('tickets survive two rotations and die on the third', async () => {
    const ring = new SessionKeyRing({ now: () => 1_800_000_000_000 });
    const ticket = await ring.issueTicket({ stream: 'cam1', sub: 'u1' }, 600);
    expect(await ring.verifyTicket(ticket)).toMatchObject({ stream: 'cam1', sub: 'u1' });
    expect(ring.rotate().keys_in_window).toBe(2);
    expect(await ring.verifyTicket(ticket)).not.toBeNull();
    expect(ring.rotate().keys_in_window).toBe(3);
    expect(await ring.verifyTicket(ticket)).not.toBeNull();
    expect(ring.rotate().keys_in_window).toBe(3);
    expect(await ring.verifyTicket(ticket)).toBeNull();
  });

  it('new tickets use the newest key', async () => {
    const ring = new SessionKeyRing({ now: () => 1_800_000_000_000 });
    const { kid } = ring.rotate();
    const t = await ring.issueTicket({ stream: 'a', sub: 'b' }, 60);
    expect(JSON.parse(Buffer.from(t.split('.')[0], 'base64url').toString()).kid).toBe(kid);
  });

  it('a cluster secret gives the same key on every node', async () => {
    const clock = { now: () => 1_800_000_000_000 };
    const a = new SessionKeyRing(clock);
    const b = new SessionKeyRing(clock);
    a.configure('cluster-secret-0123456789');
    b.configure('cluster-secret-0123456789');
    expect(await b.verifyTicket(await a.issueTicket({ stream: 'x', sub: 'y' }, 60))).not.toBeNull();
  });
});
