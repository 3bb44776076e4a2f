// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { answer, mockThePlane, openConsole, page, screen } from './console.harness.js';
import { CAMERAS, recordings, T0, UNRECORDED } from './review.fixtures.js';

// Issue 23, synchronised review (/review): up to four cameras chosen, the fifth refused in words;
// the cameras and the start moment are the address; the start is typed in the user's zone; a
// camera with nothing recorded at the clock's moment says so while the others play.
mockThePlane();

const list = answer('get', '/api/v1/cameras', { rows: [...CAMERAS, UNRECORDED], next: null });
const ids = CAMERAS.map((c) => c.id);
const address = (router: { state: { location: { search: string } } }) =>
  new URLSearchParams(router.state.location.search);

describe('the review page', () => {
  it('is in every role\'s navigation as "Review"', async () => {
    openConsole('/feed', 'user', list);
    const nav = await screen.findByRole('navigation');
    expect(within(nav).getByRole('link', { name: 'Review' }).getAttribute('href')).toBe('/review');
  });

  it('plays four cameras and refuses a fifth with a sentence, the address unchanged', async () => {
    const from = new Date(T0).toISOString();
    const { router } = openConsole(
      `/review?cameras=${ids.slice(0, 4).join(',')}&from=${from}`,
      'user',
      list,
      ...recordings({}),
    );
    const main = await page();
    for (const n of [1, 2, 3, 4])
      expect(await main.findByRole('checkbox', { name: `Camera ${n}` })).toHaveProperty('checked', true);
    expect(main.getAllByRole('figure')).toHaveLength(4);
    fireEvent.click(main.getByRole('checkbox', { name: 'Camera 5' }));
    expect(await main.findByRole('alert')).toHaveProperty(
      'textContent',
      'At most 4 cameras play together: clear one before adding another.',
    );
    expect(main.getByRole('checkbox', { name: 'Camera 5' })).toHaveProperty('checked', false);
    expect(address(router).get('cameras')).toBe(ids.slice(0, 4).join(','));
    expect(main.getAllByRole('figure')).toHaveLength(4);
    // A camera that is not recorded is offered but cannot be chosen.
    expect(main.getByRole('checkbox', { name: 'Lobby (not recorded)' })).toHaveProperty('disabled', true);
    // One cleared, the fifth goes in.
    fireEvent.click(main.getByRole('checkbox', { name: 'Camera 2' }));
    fireEvent.click(main.getByRole('checkbox', { name: 'Camera 5' }));
    expect(address(router).get('cameras')).toBe([ids[0], ids[2], ids[3], ids[4]].join(','));
    expect(main.queryByRole('alert')).toBeNull();
  });

  it('keeps the cameras and the start in the address, the start typed in the zone of the profile', async () => {
    const { router } = openConsole(
      '/review',
      'user',
      list,
      answer('get', '/api/v1/me/preferences', { timezone: 'Asia/Tokyo', clock: '24h', views: [] }),
      ...recordings({}),
    );
    const main = await page();
    expect(await main.findByText('Choose up to 4 cameras to play their recordings side by side.')).toBeTruthy();
    fireEvent.click(await main.findByRole('checkbox', { name: 'Camera 3' }));
    fireEvent.click(main.getByRole('checkbox', { name: 'Camera 1' }));
    expect(address(router).get('cameras')).toBe(`${ids[2]},${ids[0]}`);
    expect(address(router).get('from')).not.toBeNull();
    const start = main.getByLabelText(/^Start \(GMT\+9\)/);
    // 19:00 in Tokyo is 10:00 UTC.
    fireEvent.change(start, { target: { value: '2026-11-26T19:00:00' } });
    fireEvent.click(main.getByRole('button', { name: 'Review from here' }));
    expect(address(router).get('from')).toBe(new Date(T0).toISOString());
    expect(address(router).get('cameras')).toBe(`${ids[2]},${ids[0]}`);
    expect(main.getAllByRole('figure').map((f) => f.getAttribute('data-camera'))).toEqual(['Camera 3', 'Camera 1']);

    // The address alone opens the same review, the start written back in Tokyo's wall clock.
    const again = openConsole(`/review${router.state.location.search}`, 'user', list, ...recordings({}));
    const main2 = within((await screen.findAllByRole('main')).at(-1)!);
    expect(await main2.findByRole('checkbox', { name: 'Camera 3' })).toHaveProperty('checked', true);
    expect(address(again.router).get('from')).toBe(new Date(T0).toISOString());
  });

  it('says "No recording at this time" on a camera without recording at the moment, not on the others', async () => {
    const from = new Date(T0).toISOString();
    openConsole(
      `/review?cameras=${ids[0]},${ids[1]}&from=${from}`,
      'user',
      list,
      answer('get', '/api/v1/me/preferences', { timezone: 'Asia/Tokyo', clock: '24h', views: [] }),
      // Camera 1 recorded from the start; camera 2 only half an hour later.
      ...recordings({ [ids[0]!]: T0 - 60_000, [ids[1]!]: T0 + 30 * 60_000 }),
    );
    const main = await page();
    const figure = async (name: string) =>
      (await main.findAllByRole('figure')).find((f) => f.getAttribute('data-camera') === name)!;
    // Camera 1's recording is read and its player is there (the clock steers its video) ...
    const first = await figure('Camera 1');
    await waitFor(() => expect(first.querySelector('video')).not.toBeNull());
    // ... and camera 2, which has nothing at 10:00, says so once the clock has looked.
    expect(await within(await figure('Camera 2')).findByText('No recording at this time')).toBeTruthy();
    expect(within(first).queryByText('No recording at this time')).toBeNull();
    // One clock for all: paused and moved on the scrub bar, the one time shown is that moment's
    // wall clock, with its date and the zone of the profile.
    fireEvent.click(main.getByRole('button', { name: 'Pause' }));
    const bar = main.getByRole('slider', { name: 'Review position' });
    fireEvent.change(bar, { target: { value: String(T0 / 1000 + 125) } });
    await waitFor(() =>
      expect(main.getByLabelText('Review time').textContent).toMatch(/^Nov 26, (2026, )?19:02:05 GMT\+9$/),
    );
    expect(bar.getAttribute('aria-valuetext')).toMatch(/^Nov 26, (2026, )?19:02:05 GMT\+9$/);
    expect(main.getByRole('button', { name: 'Play' })).toBeTruthy();
  });
});
