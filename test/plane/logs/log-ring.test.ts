import { describe, expect, it } from 'vitest';
import { LogRing, MESSAGE_MAX_BYTES, TARGET_MAX_BYTES, truncateUtf8 } from '../../../src/common/log-ring.js';
import { ringSink, targetOf } from '../../../src/common/log-sink.js';
import { SCRUBBED, scrubSecrets } from '../../../src/common/log-scrub.js';

// The ring and scrubbing shared by the plane and the node (src/common); tests sit with the plane's log.
const CANARY = 'CanarySecret9f8e7d6c';

describe('scrubSecrets: credential-like values', () => {
  it.each([
    ['bearer token', `Authorization: Bearer ${CANARY}`],
    ['authorization header echoed', `{"authorization":"Bearer ${CANARY}"}`],
    ['password field (JSON)', `{"password":"${CANARY}","login":"bob"}`],
    ['password with spaces (JSON)', `{"password":"two words ${CANARY}"}`],
    ['password=', `login failed for bob password=${CANARY}`],
    ['token= query parameter', `GET /api/v1/events/stream?org=1&token=${CANARY}&x=2`],
    ['ticket t= parameter', `GET /cam1/index.m3u8?t=${CANARY}`],
    ['URL credentials', `ingest failed for rtsp://admin:${CANARY}@10.0.0.5:554/live`],
    ['URL credentials in JSON', `{"url":"http://u:${CANARY}@host/x"}`],
    ['S3 access key id', `s3 put refused for AKIAIOSFODNN7EXAMPLE ${CANARY.slice(0, 0)}`],
    ['S3 secret key', `secret_access_key=${CANARY}`],
    ['s3 secret_key in TOML', `secret_key = "${CANARY}"`],
    ['api_token', `{"api_token":"${CANARY}"}`],
    ['auth_backend_secret', `auth_backend_secret: ${CANARY}`],
    ['escaped JSON inside a message', `{"msg":"body {\\"password\\":\\"${CANARY}\\"}"}`],
    ['a JWT alone', `viewer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${CANARY}`],
  ])('%s', (_name, text) => {
    const out = scrubSecrets(text);
    expect(out).not.toContain(CANARY);
    expect(out).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(out).toContain(SCRUBBED);
    expect(scrubSecrets(out)).toBe(out);
  });

  it('keeps prose about the Authorization header readable (the node says how /metrics is opened)', () => {
    const line = '/metrics is closed (since build 2026.08): it accepts Authorization: Bearer with the read token';
    expect(scrubSecrets(line)).toBe(line);
    expect(scrubSecrets('Authorization: Bearer abcdefghijklmnopqrstu')).toBe(`Authorization: Bearer ${SCRUBBED}`);
  });

  it('keeps what only looks like a secret name, and keeps a JSON line valid', () => {
    const line = JSON.stringify({
      level: 30,
      port: 8080,
      token_count: 3,
      password_set: true,
      token: null,
      text: 'tokens',
    });
    expect(scrubSecrets(line)).toBe(line);
    const secretLine = JSON.stringify({
      level: 30,
      password: CANARY,
      nested: { api_token: CANARY, url: `http://a:${CANARY}@h/` },
      msg: `Bearer ${CANARY}`,
    });
    const out = scrubSecrets(secretLine);
    expect(out).not.toContain(CANARY);
    expect(() => JSON.parse(out)).not.toThrow();
  });
});

describe('truncateUtf8', () => {
  it('cuts on a character boundary', () => {
    expect(truncateUtf8('abc', 2)).toBe('ab');
    expect(truncateUtf8('é'.repeat(10), 5)).toBe('éé'); // 2 bytes each: 5 bytes hold two
    expect(truncateUtf8('a😀', 4)).toBe('a'); // the emoji takes 4 bytes
    expect(truncateUtf8('a😀', 5)).toBe('a😀');
    expect(truncateUtf8('short', 4096)).toBe('short');
  });
});

describe('LogRing', () => {
  it('truncates a message to 4096 bytes and a target to 128 bytes at capture', () => {
    const ring = new LogRing();
    const e = ring.capture('info', 'ü'.repeat(100), 'x'.repeat(5000) + 'ä'.repeat(10), 1);
    expect(Buffer.byteLength(e.message)).toBe(MESSAGE_MAX_BYTES);
    expect(Buffer.byteLength(e.target)).toBe(TARGET_MAX_BYTES);
    const odd = ring.capture('info', 't', 'x'.repeat(4095) + 'ä', 2);
    expect(Buffer.byteLength(odd.message)).toBe(4095); // the 2-byte character does not fit whole
  });

  it('scrubs at capture, before cutting', () => {
    const ring = new LogRing();
    const e = ring.capture('warn', 'argus_plane::x', `${'y'.repeat(4080)} password=${CANARY}`, 1);
    expect(e.message).not.toContain(CANARY.slice(0, 6));
  });

  it('keeps the newest 4096 entries, seq from 1', () => {
    const ring = new LogRing();
    for (let i = 1; i <= 5000; i++) ring.capture('info', 't', `m${i}`, i);
    expect(ring.head).toBe(5000);
    expect(ring.capacity).toBe(4096);
    const all = ring.page({}, 0, 10_000);
    expect(all).toHaveLength(4096);
    expect(all[0]!.seq).toBe(5000);
    expect(all.at(-1)!.seq).toBe(905);
    expect(ring.since(0)[0]!.seq).toBe(905);
    expect(ring.since(4998).map((e) => e.seq)).toEqual([4999, 5000]);
  });

  it('filters (level minimum, exact target, case-insensitive q over message and target), then reverses, then cuts', () => {
    const ring = new LogRing();
    ring.capture('debug', 'argus_plane::db', 'probe', 1);
    ring.capture('info', 'argus_plane::sweeper', 'Node A polled', 2);
    ring.capture('warn', 'argus_plane::sweeper', 'node B slow', 3);
    ring.capture('error', 'argus_plane::http', 'request failed', 4);
    ring.capture('info', 'argus_plane::sweeper', 'node C polled', 5);
    const seqs = (f: Parameters<LogRing['page']>[0], after = 0, limit = 500) =>
      ring.page(f, after, limit).map((e) => e.seq);
    expect(seqs({})).toEqual([5, 4, 3, 2, 1]);
    expect(seqs({ level: 'all' })).toEqual([5, 4, 3, 2, 1]);
    expect(seqs({ level: 'info' })).toEqual([5, 4, 3, 2]);
    expect(seqs({ level: 'warn' })).toEqual([4, 3]);
    expect(seqs({ level: 'error' })).toEqual([4]);
    expect(seqs({ target: 'argus_plane::sweeper' })).toEqual([5, 3, 2]);
    expect(seqs({ target: 'argus_plane::sweep' })).toEqual([]);
    expect(seqs({ q: 'NODE' })).toEqual([5, 3, 2]);
    expect(seqs({ q: 'HTTP' })).toEqual([4]); // q also searches the target
    expect(seqs({}, 3)).toEqual([5, 4]);
    expect(seqs({ target: 'argus_plane::sweeper' }, 0, 2)).toEqual([5, 3]); // cut after filtering
  });

  it('tells subscribers of each entry', () => {
    const ring = new LogRing();
    const got: number[] = [];
    const off = ring.subscribe((e) => got.push(e.seq));
    ring.capture('info', 't', 'a', 1);
    off();
    ring.capture('info', 't', 'b', 2);
    expect(got).toEqual([1]);
  });
});

describe('ringSink (the pino destination)', () => {
  it('writes the scrubbed line out and captures level, target, time and the fields in the message', () => {
    const ring = new LogRing();
    let out = '';
    const sink = ringSink(
      ring,
      {
        write: (s: string) => {
          out += s;
        },
      },
      'argus_plane',
    );
    sink.write(
      JSON.stringify({
        level: 40,
        time: 1234,
        pid: 1,
        hostname: 'h',
        part: 'sweeper',
        msg: 'node slow',
        node_id: 'n1',
        url: `http://u:${CANARY}@x/`,
      }) + '\n',
    );
    sink.write(JSON.stringify({ level: 50, time: 1235, reqId: 'req-1', msg: 'request failed' }) + '\n');
    sink.write(JSON.stringify({ level: 20, time: 1236, msg: 'plain' }) + '\n');
    sink.write('not json token=' + CANARY + '\n');
    expect(out).not.toContain(CANARY);
    const [raw, plain, http, slow] = ring.page({}, 0, 10);
    expect(slow).toMatchObject({ seq: 1, ts_ms: 1234, level: 'warn', target: 'argus_plane::sweeper' });
    expect(slow!.message).toMatch(/^node slow \{"node_id":"n1","url":"http:\/\/u:\[redacted\]@x\/"\}$/);
    expect(http).toMatchObject({
      level: 'error',
      target: 'argus_plane::http',
      message: 'request failed {"reqId":"req-1"}',
    });
    expect(plain).toMatchObject({ level: 'debug', target: 'argus_plane', message: 'plain' });
    expect(raw).toMatchObject({ level: 'info', target: 'argus_plane', message: 'not json token=[redacted]' });
  });

  it('names targets after the child logger part or module', () => {
    expect(targetOf('argus_node', { module: 'media' })).toBe('argus_node::media');
    expect(targetOf('argus_node', {})).toBe('argus_node');
  });
});
