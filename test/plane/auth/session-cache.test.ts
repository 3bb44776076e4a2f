import { expect, it } from 'vitest';
import { SessionCache } from '../../../src/plane/auth/session-cache.js';

const row = (sid: string, user: string, expires = 10_000) => ({
  session_id: sid,
  user_id: user,
  org_id: 'o',
  role: 'admin' as const,
  login: 'l',
  name: 'n',
  expires_at: new Date(expires),
});

it('serves an entry within its TTL for the same key id only', () => {
  const c = new SessionCache(2000);
  c.put(row('s1', 'u1'), 'k.1', 1000);
  expect(c.get('s1', 'k.1', 2999)?.session_id).toBe('s1');
  expect(c.get('s1', 'k.2', 1500)).toBeUndefined();
  c.put(row('s1', 'u1'), 'k.1', 1000);
  expect(c.get('s1', 'k.1', 3001)).toBeUndefined();
});

it('never serves a session past its expiry', () => {
  const c = new SessionCache(60_000);
  c.put(row('s1', 'u1', 5000), 'k', 1000);
  expect(c.get('s1', 'k', 4999)).toBeDefined();
  expect(c.get('s1', 'k', 5000)).toBeUndefined();
});

it('drops by session, by user and entirely', () => {
  const c = new SessionCache(60_000);
  c.put(row('s1', 'u1'), 'k', 0);
  c.put(row('s2', 'u1'), 'k', 0);
  c.put(row('s3', 'u2'), 'k', 0);
  c.dropSession('s3');
  expect(c.get('s3', 'k', 1)).toBeUndefined();
  c.dropUser('u1');
  expect(c.get('s1', 'k', 1)).toBeUndefined();
  expect(c.get('s2', 'k', 1)).toBeUndefined();
  c.put(row('s4', 'u3'), 'k', 0);
  c.clear();
  expect(c.get('s4', 'k', 1)).toBeUndefined();
});

it('stays bounded', () => {
  const c = new SessionCache(60_000, 3);
  for (let i = 0; i < 10; i++) c.put(row(`s${i}`, 'u'), 'k', 0);
  expect(c.get('s9', 'k', 1)).toBeDefined();
  expect(c.get('s0', 'k', 1)).toBeUndefined();
});
