import { describe, expect, it } from 'vitest';
import { canRead, exposesMore } from '../../../src/plane/dashboards/boards.rules.js';
import { periodRange } from '../../../src/common/calendar.js';
import type { Principal } from '../../../src/plane/http/principal.js';

const P = (role: Principal['role'], userId = 'u1', orgId = 'o1') => ({ role, userId, orgId }) as Principal;
const A = (visibility: string, audience: string[] = [], org = 'o1') => ({
  org_id: org,
  visibility,
  audience_user_ids: audience,
});

describe('visibility of dashboards and reports', () => {
  it.each([
    ['superadmin', A('admins', [], 'o2'), true],
    ['admin', A('admins'), true],
    ['admin', A('org', [], 'o2'), false],
    ['user', A('org'), true],
    ['user', A('admins'), false],
    ['user', A('users', ['u1']), true],
    ['user', A('users', ['u2']), false],
  ] as const)('%s reads %j: %s', (role, a, want) => expect(canRead(P(role), a)).toBe(want));

  it.each([
    [A('org'), A('org'), false],
    [A('users', ['u1']), A('org'), false],
    [A('org'), A('admins'), true],
    [A('users', ['u1']), A('admins'), true],
    [A('admins'), A('admins'), false],
    [A('org'), A('users', ['u1']), true],
    [A('admins'), A('users', ['u1']), false],
    [A('users', ['u1']), A('users', ['u1', 'u2']), false],
    [A('users', ['u1', 'u3']), A('users', ['u1', 'u2']), true],
  ])('dashboard %j showing report %j exposes more: %s', (d, r, want) => expect(exposesMore(d, r)).toBe(want));
});

describe('periods in calendar time', () => {
  const at = (iso: string) => Date.parse(iso);
  const range = (p: Parameters<typeof periodRange>[0], tz: string, now: string) => {
    const r = periodRange(p, tz, at(now));
    return [r.from.toISOString(), r.to.toISOString()];
  };
  it('today starts at local midnight, also on a 23-hour day', () => {
    expect(range('today', 'Europe/Berlin', '2026-03-29T12:00:00Z')).toEqual([
      '2026-03-28T23:00:00.000Z',
      '2026-03-29T12:00:00.000Z',
    ]);
    expect(range('today', 'America/New_York', '2026-11-01T20:00:00Z')).toEqual([
      '2026-11-01T04:00:00.000Z',
      '2026-11-01T20:00:00.000Z',
    ]);
    expect(range('today', 'UTC', '2026-11-01T20:00:00Z')).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-11-01T20:00:00.000Z',
    ]);
  });
  it('week from Monday, month from the first, last_* as durations', () => {
    // 2026-11-25 is a Wednesday
    expect(range('week', 'Europe/Berlin', '2026-11-25T10:00:00Z')[0]).toBe('2026-11-22T23:00:00.000Z');
    expect(range('month', 'Europe/Berlin', '2026-11-25T10:00:00Z')[0]).toBe('2026-10-31T23:00:00.000Z');
    expect(range('month', 'Asia/Kolkata', '2026-11-25T10:00:00Z')[0]).toBe('2026-10-31T18:30:00.000Z');
    expect(range('last_24h', 'Europe/Berlin', '2026-11-25T10:00:00Z')).toEqual([
      '2026-11-24T10:00:00.000Z',
      '2026-11-25T10:00:00.000Z',
    ]);
    expect(range('last_7d', 'UTC', '2026-11-25T10:00:00Z')[0]).toBe('2026-11-18T10:00:00.000Z');
    expect(range('last_30d', 'UTC', '2026-11-25T10:00:00Z')[0]).toBe('2026-10-26T10:00:00.000Z');
  });
  it('is never empty at the instant it starts', () => {
    expect(range('today', 'UTC', '2026-11-25T00:00:00Z')).toEqual([
      '2026-11-25T00:00:00.000Z',
      '2026-11-25T00:00:01.000Z',
    ]);
  });
});
