import { describe, expect, it } from 'vitest';
import { gateRule, isGated, type Principal } from '../../../src/node/gate/levels.js';
import { ClientAddressResolver } from '../../../src/node/gate/client-address.js';
import { LoginThrottle } from '../../../src/node/gate/throttle.js';

const read: Principal = { kind: 'read_token' };
const write: Principal = { kind: 'write_token' };
const session: Principal = { kind: 'session', expiresAt: 0 };
const open: Principal = { kind: 'open' };

function outcome(p: Principal | null, method: string, path: string): string {
  const e = gateRule(p, method, path);
  if (!e) return 'ok';
  const reason = (e.body() as { reason?: string }).reason;
  return reason ? `${e.status} ${reason}` : `${e.status} ${e.code}`;
}

describe('token-level table of document 3', () => {
  it.each([
    // level, method, path, outcome
    [read, 'GET', '/api/v1/streams', 'ok'],
    [read, 'HEAD', '/api/v1/streams', 'ok'],
    [read, 'OPTIONS', '/api/v1/streams', 'ok'],
    [read, 'POST', '/api/v1/config/rollback', '403 read_token_cannot_write'],
    [read, 'PATCH', '/api/v1/config/globals', '403 read_token_cannot_write'],
    [read, 'PUT', '/api/v1/streams/a', '403 read_token_cannot_write'],
    [read, 'DELETE', '/api/v1/streams/a', '403 read_token_cannot_write'],
    [read, 'GET', '/metrics', 'ok'],
    [read, 'GET', '/api/v1/config', '403 read_token_cannot_read_config'],
    [read, 'HEAD', '/api/v1/config', '403 read_token_cannot_read_config'],
    [read, 'GET', '/api/v1/fleet/self/config', '403 read_token_cannot_read_config'],
    [read, 'GET', '/api/v1/config/history', '403 read_token_cannot_read_config'],
    [read, 'POST', '/api/v1/auth/media-grants', '403 api_token_is_not_a_media_credential'],
    [write, 'GET', '/api/v1/streams', 'ok'],
    [write, 'PATCH', '/api/v1/config/globals', 'ok'],
    [write, 'DELETE', '/api/v1/streams/a', 'ok'],
    [write, 'GET', '/metrics', 'ok'],
    [write, 'GET', '/api/v1/config', 'ok'],
    [write, 'GET', '/api/v1/fleet/self/config', 'ok'],
    [write, 'POST', '/api/v1/auth/rotate-session-keys', 'ok'],
    [write, 'POST', '/api/v1/auth/media-grants', '403 api_token_is_not_a_media_credential'],
    [session, 'GET', '/metrics', 'ok'],
    [session, 'GET', '/api/v1/config', 'ok'],
    [session, 'POST', '/api/v1/auth/media-grants', 'ok'],
    [session, 'DELETE', '/api/v1/streams/a', 'ok'],
    [null, 'GET', '/api/v1/streams', '401 unauthorized'],
    [null, 'GET', '/metrics', '401 unauthorized'],
    [null, 'POST', '/api/v1/auth/media-grants', '401 unauthorized'],
    [open, 'GET', '/api/v1/config', 'ok'],
    [open, 'GET', '/metrics', '401 unauthorized'],
  ] as Array<[Principal | null, string, string, string]>)('%o %s %s -> %s', (p, method, path, expected) => {
    expect(outcome(p, method, path)).toBe(expected);
  });

  it('closes /api/v1 and /metrics but not login, the panel or media', () => {
    expect(isGated('/api/v1/streams')).toBe(true);
    expect(isGated('/api/v1')).toBe(true);
    expect(isGated('/metrics')).toBe(true);
    expect(isGated('/api/v1/auth/login')).toBe(false);
    expect(isGated('/admin')).toBe(false);
    expect(isGated('/cam/embed.html')).toBe(false);
    expect(isGated('/api/v10')).toBe(false);
  });
});

describe('client address behind trusted proxies', () => {
  it('ignores X-Forwarded-For without trusted_proxies', () => {
    const r = new ClientAddressResolver();
    expect(r.resolve('127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
  });

  it('walks from the right past trusted hops only', () => {
    const r = new ClientAddressResolver();
    r.configure(['127.0.0.1', '10.0.0.0/8']);
    expect(r.resolve('127.0.0.1', '198.51.100.1, 203.0.113.9, 10.1.2.3')).toBe('203.0.113.9');
    expect(r.resolve('::ffff:127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(r.resolve('192.0.2.7', '203.0.113.9')).toBe('192.0.2.7');
  });
});

describe('login throttling window', () => {
  it('opens after 5 failures within 60 s and closes 60 s after the last one', () => {
    let now = 1_000_000;
    const t = new LoginThrottle({ now: () => now });
    for (let i = 0; i < 4; i++) t.fail('a');
    expect(t.retryAfter('a')).toBe(0);
    t.fail('a');
    expect(t.retryAfter('a')).toBe(60);
    expect(t.retryAfter('b')).toBe(0);
    now += 59_500;
    expect(t.retryAfter('a')).toBe(1);
    now += 600;
    expect(t.retryAfter('a')).toBe(0);
  });

  it('a success clears the address', () => {
    const t = new LoginThrottle({ now: () => 0 });
    for (let i = 0; i < 5; i++) t.fail('a');
    t.succeed('a');
    expect(t.retryAfter('a')).toBe(0);
  });
});
