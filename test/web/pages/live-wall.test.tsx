// @vitest-environment happy-dom
/**
 * The live wall (issue 23) against a mocked plane: layouts and paging, a tile maximised on the main
 * stream and given back with Escape, each tile's name and wall clock in the user's zone, saved views
 * opened, saved (the zone and clock sent back as read), renamed and deleted, a refused save said in
 * words with the edit kept, and a view's camera no longer visible left out.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { answer, http, mockThePlane, ok, openConsole, refused, reply, screen } from './console.harness.js';
import { camera } from './fixtures.js';
import type { View } from '../../../web/src/lib/wall-layout.js';

mockThePlane();

const id = (n: number) => `0190c0de-0000-7000-8000-0000000000c${n}`;
const SUB = (n: number) => ({
  sub_source: 'rtsp://cam/sub',
  profiles: [
    { kind: 'MAIN' as const, stream: `cam-${n}`, source_url: 'rtsp://cam/main' },
    { kind: 'SUB' as const, stream: `cam-${n}-sub`, source_url: 'rtsp://cam/sub' },
  ],
});
const LONG = 'Loading bay number seven, the east gate beside the river and the car park';
const cameras = [
  camera({ id: id(1), name: 'Gate north', ...SUB(1) }),
  camera({ id: id(2), name: 'Dock' }),
  camera({ id: id(3), name: LONG }),
  camera({ id: id(4), name: 'Lobby', ...SUB(4) }),
  camera({ id: id(5), name: 'Roof' }),
];
const listed = answer('get', '/api/v1/cameras', { rows: cameras, next: null });
const GATE: View = { name: 'Gate', layout: '2x2', camera_ids: [id(4), id(1)] };
const prefs = (views: View[] = [GATE]) =>
  reply('get', '/api/v1/me/preferences', () => ok({ timezone: 'Asia/Tokyo', clock: '12h', views }));

/** The play requests the tiles make, per camera. */
function plays() {
  const sent: Array<{ camera: string; body: unknown }> = [];
  const handler = http.post('/api/v1/cameras/:id/play', async ({ request, params }) => {
    sent.push({ camera: String(params.id), body: await request.json() });
    return ok({ url: 'http://127.0.0.1:9/live/index.m3u8', token: 'viewer', expires_at: '2030-01-01T00:00:00.000Z' });
  });
  return { sent, handler };
}

/** The PUTs of the preferences, answered as the plane does (the body back, and read back by a later GET). */
function puts(views: View[] = [GATE]) {
  const sent: unknown[] = [];
  let record: unknown = { timezone: 'Asia/Tokyo', clock: '12h', views };
  const handlers = [
    http.get('/api/v1/me/preferences', () => ok(record)),
    http.put('/api/v1/me/preferences', async ({ request }) => {
      record = await request.json();
      sent.push(record);
      return ok(record);
    }),
  ];
  return { sent, handlers };
}

/** The tiles shown, by their Maximise buttons' names (a hidden tile has none a user can reach). */
const tiles = () => screen.queryAllByRole('button', { name: /^Maximise / }).map((b) => b.getAttribute('aria-label'));
const layout = (value: string) => fireEvent.change(screen.getByLabelText('Layout'), { target: { value } });

describe('layouts and paging', () => {
  it('auto holds every camera in the smallest square; 2x2 pages with Previous/Next; 1 shows one', async () => {
    openConsole('/live', 'user', listed, prefs([]));
    await waitFor(() => expect(tiles().length).toBe(5));
    expect(document.querySelector('.wall-grid')!.className).toContain('side-3');
    expect(screen.queryByRole('button', { name: 'Next page' })).toBeNull();

    layout('2x2');
    await waitFor(() =>
      expect(tiles()).toEqual(['Maximise Gate north', 'Maximise Dock', `Maximise ${LONG}`, 'Maximise Lobby']),
    );
    expect(location.search).toBe('?layout=2x2');
    expect(screen.getByText('Page 1 of 2')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Previous page' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(tiles()).toEqual(['Maximise Roof']));
    expect(location.search).toBe('?layout=2x2&page=2');

    layout('1');
    await waitFor(() => expect(tiles()).toEqual(['Maximise Gate north']));
    expect(screen.getByText('Page 1 of 5')).toBeTruthy();
    expect(location.search).toBe('?layout=1');
  });

  it('each tile: its name whole in the title, a link to its camera, and a wall clock in the chosen zone and clock', async () => {
    openConsole('/live', 'user', listed, prefs([]));
    const name = await screen.findByRole('link', { name: LONG });
    expect(name.getAttribute('title')).toBe(LONG);
    expect(name.getAttribute('href')).toBe(`/cameras/${id(3)}`);
    const clocks = document.querySelectorAll('.wall-clock');
    expect(clocks.length).toBe(5);
    await waitFor(() => expect(clocks[0]!.textContent).toMatch(/^\d{1,2}:\d\d:\d\d\s[AP]M GMT\+9$/));
    for (const label of ['Layout', 'View']) expect(screen.getByLabelText(label)).toBeTruthy();
    for (const name of ['Full screen', 'Save view', 'Cameras', `Full screen ${LONG}`])
      expect(screen.getByRole('button', { name })).toBeTruthy();
  });
});

describe('on a phone', () => {
  it('a larger layout shows 2x2, saying so, and pages the rest', async () => {
    const dom = (window as unknown as { happyDOM: { setViewport(v: { width: number; height: number }): void } })
      .happyDOM;
    dom.setViewport({ width: 390, height: 844 });
    try {
      openConsole('/live?layout=4x4', 'user', listed, prefs([]));
      await waitFor(() => expect(tiles().length).toBe(4));
      expect(document.querySelector('.wall-grid')!.className).toContain('side-2');
      expect(screen.getByText('2×2 here')).toBeTruthy();
      expect(screen.getByText('Page 1 of 2')).toBeTruthy();
      expect(screen.getByLabelText<HTMLSelectElement>('Layout').value).toBe('4x4');
    } finally {
      dom.setViewport({ width: 1024, height: 768 });
    }
  });
});

describe('a tile maximised', () => {
  it('fills the wall alone and asks the main stream; Back to wall and Escape give the wall back', async () => {
    const play = plays();
    openConsole('/live', 'user', listed, prefs([]), play.handler);
    await waitFor(() => expect(tiles().length).toBe(5));
    // Not maximised, a tile of a camera with a sub stream asks for it.
    const tile = document.querySelector(`[data-camera="${id(1)}"]`)!;
    expect(tile.getAttribute('data-profile')).toBe('SUB');
    expect(document.querySelector(`[data-camera="${id(2)}"]`)!.getAttribute('data-profile')).toBe('MAIN');

    fireEvent.click(screen.getByRole('button', { name: 'Maximise Gate north' }));
    await screen.findByRole('button', { name: 'Back to wall' });
    expect(tiles()).toEqual([]);
    expect(document.querySelectorAll('.wall-tile:not([hidden])').length).toBe(1);
    expect(tile.getAttribute('data-profile')).toBe('MAIN');
    await waitFor(() => expect(play.sent.filter((p) => p.camera === id(1)).at(-1)?.body).toEqual({ profile: 'MAIN' }));
    // Only the maximised tile plays (the budget goes to it alone).
    expect(new Set(play.sent.map((p) => p.camera))).toEqual(new Set([id(1)]));

    fireEvent.keyDown(document.body, { key: 'Escape' });
    await waitFor(() => expect(tiles().length).toBe(5));
    fireEvent.click(screen.getByRole('button', { name: 'Maximise Lobby' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Back to wall' }));
    await waitFor(() => expect(tiles().length).toBe(5));
  });
});

describe('saved views', () => {
  it('opens a view: its layout and cameras in its order, a camera no longer visible left out', async () => {
    const gone = { ...GATE, camera_ids: [id(4), id(9), id(1)] };
    openConsole('/live?view=Gate', 'user', listed, prefs([gone]));
    await waitFor(() => expect(tiles()).toEqual(['Maximise Lobby', 'Maximise Gate north']));
    expect(screen.getByLabelText<HTMLSelectElement>('View').value).toBe('Gate');
    expect(document.querySelector('.wall-grid')!.className).toContain('side-2');
    expect(screen.queryByText('not saved')).toBeNull();
  });

  it('a view opened from the list; a view the address names that is not saved is said', async () => {
    openConsole('/live?view=Nowhere', 'user', listed, prefs());
    expect(await screen.findByText('You have no saved view named “Nowhere”.')).toBeTruthy();
    await waitFor(() => expect(tiles().length).toBe(5));
    fireEvent.change(screen.getByLabelText('View'), { target: { value: 'Gate' } });
    await waitFor(() => expect(tiles()).toEqual(['Maximise Lobby', 'Maximise Gate north']));
    expect(location.search).toBe('?view=Gate');
  });

  it('saves a changed view over itself, the zone and clock sent back as read', async () => {
    const put = puts();
    openConsole('/live?view=Gate', 'user', listed, ...put.handlers);
    await waitFor(() => expect(tiles().length).toBe(2));
    layout('1');
    expect(await screen.findByText('not saved')).toBeTruthy();
    expect(location.search).toBe('?view=Gate&layout=1');
    fireEvent.click(screen.getByRole('button', { name: 'Save view' }));
    const form = within(await screen.findByRole('form', { name: 'Save view' }));
    expect(form.getByLabelText<HTMLInputElement>('Name of the view').value).toBe('Gate');
    fireEvent.click(form.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Save view' })).toBeNull());
    expect(put.sent).toEqual([
      { timezone: 'Asia/Tokyo', clock: '12h', views: [{ name: 'Gate', layout: '1', camera_ids: [id(4), id(1)] }] },
    ]);
    expect(location.search).toBe('?view=Gate');
    expect(screen.queryByText('not saved')).toBeNull();
  });

  it('saves cameras chosen in the checklist as a new view', async () => {
    const put = puts();
    openConsole('/live', 'user', listed, ...put.handlers);
    await waitFor(() => expect(tiles().length).toBe(5));
    fireEvent.click(screen.getByRole('button', { name: 'Cameras' }));
    fireEvent.click(await screen.findByRole('button', { name: 'None' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Roof' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Dock' }));
    await waitFor(() => expect(tiles()).toEqual(['Maximise Roof', 'Maximise Dock']));
    expect(location.search).toBe(`?cameras=${id(5)},${id(2)}`);
    fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save view' }));
    const form = within(await screen.findByRole('form', { name: 'Save view' }));
    fireEvent.change(form.getByLabelText('Name of the view'), { target: { value: 'Back yard' } });
    fireEvent.click(form.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(location.search).toBe('?view=Back+yard'));
    expect(put.sent).toEqual([
      {
        timezone: 'Asia/Tokyo',
        clock: '12h',
        views: [GATE, { name: 'Back yard', layout: 'auto', camera_ids: [id(5), id(2)] }],
      },
    ]);
  });

  it('a refused save or rename is said in words; the name typed and the unsaved layout stay', async () => {
    const refusals = ['bad_views', 'duplicate_view_name'];
    openConsole(
      '/live?view=Gate',
      'user',
      listed,
      prefs([GATE, { name: 'Dock', layout: '1', camera_ids: [] }]),
      reply('put', '/api/v1/me/preferences', () => refused(400, refusals.shift()!)),
    );
    await waitFor(() => expect(tiles().length).toBe(2));
    layout('3x3');
    fireEvent.click(screen.getByRole('button', { name: 'Save view' }));
    const saving = within(await screen.findByRole('form', { name: 'Save view' }));
    fireEvent.change(saving.getByLabelText('Name of the view'), { target: { value: 'Gate wide' } });
    fireEvent.click(saving.getByRole('button', { name: 'Save' }));
    expect((await saving.findByRole('alert')).textContent).toBe('The saved views are not valid: at most 32.');
    expect(saving.getByLabelText<HTMLInputElement>('Name of the view').value).toBe('Gate wide');
    expect(location.search).toBe('?view=Gate&layout=3x3');
    fireEvent.click(saving.getByRole('button', { name: 'Cancel' }));

    fireEvent.click(screen.getByRole('button', { name: 'Rename view' }));
    const form = within(await screen.findByRole('form', { name: 'Rename view' }));
    fireEvent.change(form.getByLabelText('Name of the view'), { target: { value: 'dock' } });
    fireEvent.click(form.getByRole('button', { name: 'Rename' }));
    const alert = await form.findByRole('alert');
    expect(alert.textContent).toBe('Two saved views have the same name: give each its own.');
    expect(form.getByLabelText<HTMLInputElement>('Name of the view').value).toBe('dock');
    expect(location.search).toBe('?view=Gate&layout=3x3');
    expect(screen.getByText('not saved')).toBeTruthy();
    expect(tiles()).toEqual(['Maximise Lobby', 'Maximise Gate north']);
  });

  it('renames and deletes a view (its name typed to confirm)', async () => {
    const put = puts();
    openConsole('/live?view=Gate', 'user', listed, ...put.handlers);
    await waitFor(() => expect(tiles().length).toBe(2));
    fireEvent.click(screen.getByRole('button', { name: 'Rename view' }));
    const form = within(await screen.findByRole('form', { name: 'Rename view' }));
    fireEvent.change(form.getByLabelText('Name of the view'), { target: { value: 'Gate east' } });
    fireEvent.click(form.getByRole('button', { name: 'Rename' }));
    await waitFor(() => expect(location.search).toBe('?view=Gate+east'));
    expect(put.sent.at(-1)).toEqual({ timezone: 'Asia/Tokyo', clock: '12h', views: [{ ...GATE, name: 'Gate east' }] });

    fireEvent.click(await screen.findByRole('button', { name: 'Delete view' }));
    const dialog = within(await screen.findByRole('dialog'));
    fireEvent.change(dialog.getByRole('textbox'), { target: { value: 'Gate east' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Delete view' }));
    await waitFor(() => expect(location.search).toBe(''));
    expect(put.sent.at(-1)).toEqual({ timezone: 'Asia/Tokyo', clock: '12h', views: [] });
    await waitFor(() => expect(tiles().length).toBe(5));
  });
});
