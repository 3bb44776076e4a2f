// @vitest-environment happy-dom
/**
 * Times carry their zone (issue 22): every time the console writes is in the user's chosen zone
 * and clock (GET /api/v1/me/preferences) with the zone's short name; the browser's zone and 24 h
 * when the user chose nothing. 2026-11-25T10:00:00Z is 19:00 in Tokyo (GMT+9) and 05:00 in New York (EST).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { within } from '@testing-library/react';
import { BROWSER_TIME, setTimeDisplay, when, zoneName } from '../../../web/src/lib/text.js';
import { answer, mockThePlane, ok, openConsole, ORG, reply, screen } from './console.harness.js';
import { EVENT, event } from './fixtures.js';

mockThePlane();
// when() keeps the signed-in user's choice for the whole page (tests share one module here).
afterEach(() => setTimeDisplay(BROWSER_TIME));

const prefs = (timezone: string | null, clock: '12h' | '24h') =>
  reply('get', '/api/v1/me/preferences', () => ok({ timezone, clock, views: [] }));
const AT = '2026-11-25T10:00:00.000Z';

describe('when(): a time in a zone and clock, with the zone named', () => {
  it('24 h and 12 h in named zones; a bad time is a dash', () => {
    expect(when(AT, { zone: 'Asia/Tokyo', clock: '24h' })).toMatch(/19:00:00 GMT\+9$/);
    expect(when(AT, { zone: 'Asia/Tokyo', clock: '12h' })).toMatch(/7:00:00\sPM GMT\+9$/);
    expect(when(AT, { zone: 'America/New_York', clock: '12h' })).toMatch(/5:00:00\sAM EST$/);
    expect(when(AT, { zone: 'UTC', clock: '24h' }, false)).toBe('10:00:00 UTC');
    expect(when(Date.parse(AT), { zone: 'UTC', clock: '24h' }, false)).toBe('10:00:00 UTC');
    expect(when('not a date', { zone: 'UTC', clock: '24h' })).toBe('—');
    expect(zoneName({ zone: 'America/New_York', clock: '24h' }, Date.parse('2026-07-01T00:00:00Z'))).toBe('EDT');
  });

  it("the year only when it is not this year's (in the chosen zone)", () => {
    const utc = { zone: 'UTC', clock: '24h' } as const;
    const year = String(new Date().getUTCFullYear());
    expect(when('2001-05-01T12:00:00Z', utc)).toContain('2001');
    expect(when('2001-05-01T12:00:00Z', utc)).toMatch(/12:00:00 UTC$/);
    const now = when(Date.now(), utc);
    expect(now).not.toContain(year);
    expect(now).toMatch(/\d\d:\d\d:\d\d UTC$/);
  });

  it("the browser's zone when none is chosen, still named", () => {
    const browser = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(when(AT, BROWSER_TIME)).toBe(when(AT, { zone: browser, clock: '24h' }));
    expect(when(AT, BROWSER_TIME)).toMatch(/\d\d:\d\d:\d\d \S+$/);
  });
});

describe('pages write times in the chosen zone and clock', () => {
  // The feed's rows are measured by the browser (a virtual list): the Chromium test reads them;
  // here the event card, which writes its time with the same when().
  const card = answer('get', '/api/v1/events/{id}', {
    event: event(),
    template: null,
    rendered: { title: 'Plate read', details: [] },
  });

  it('the event card: Tokyo, 12 h', async () => {
    openConsole(`/events/${EVENT}`, 'user', prefs('Asia/Tokyo', '12h'), card);
    const time = await screen.findByText(/7:00:00\sPM GMT\+9/);
    expect(time.getAttribute('datetime')).toBe(AT);
  });

  it('the event card: New York, 24 h', async () => {
    openConsole(`/events/${EVENT}`, 'admin', prefs('America/New_York', '24h'), card);
    expect(await screen.findByText(/05:00:00 EST/)).toBeTruthy();
  });

  it("a module token's last use (administrators): Tokyo, 24 h, the instant in its tooltip", async () => {
    openConsole(
      '/admin/tokens',
      'admin',
      prefs('Asia/Tokyo', '24h'),
      answer('get', '/api/v1/module-tokens', {
        rows: [
          {
            id: '0190c0de-0000-7000-8000-0000000000f1',
            org_id: ORG,
            name: 'lpr-gate-2',
            enabled: true,
            rate_limit: null,
            created_at: '2026-11-01T08:00:00.000Z',
            last_used_at: AT,
          },
        ],
        next: null,
      }),
    );
    const row = (await screen.findByText('lpr-gate-2')).closest('tr')!;
    const time = within(row).getByText(/19:00:00 GMT\+9/);
    expect(time.getAttribute('datetime')).toBe(AT);
  });
});
