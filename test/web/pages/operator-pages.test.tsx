// @vitest-environment happy-dom
/**
 * The operator's pages against a mocked plane (issue 21 §4): the live grid, the feed, a camera,
 * an event's card; each in its loading, empty, error and data states, as an operator reads them.
 */
import { describe, expect, it } from 'vitest';
import { HttpResponse } from 'msw';
import { answer, mockThePlane, never, openConsole, page, refused, reply, screen } from './console.harness.js';
import { CAMERA, camera, EVENT, event } from './fixtures.js';

mockThePlane();

describe('live grid (/live)', () => {
  it('loading', async () => {
    openConsole('/live', 'user', reply('get', '/api/v1/cameras', never));
    expect(await screen.findByText('Loading cameras…')).toBeTruthy();
  });

  it('empty: no camera granted', async () => {
    openConsole('/live', 'user', answer('get', '/api/v1/cameras', { rows: [], next: null }));
    expect(await screen.findByText('No camera you may see yet.')).toBeTruthy();
  });

  it('error', async () => {
    openConsole(
      '/live',
      'user',
      reply('get', '/api/v1/cameras', () => refused(503, 'db_unavailable')),
    );
    expect(await screen.findByText('The cameras could not be read.')).toBeTruthy();
  });

  it('data: a tile per camera with its name (a link to its page) and status', async () => {
    const second = camera({ id: '0190c0de-0000-7000-8000-0000000000c2', name: 'Dock', status: 'unavailable' });
    openConsole('/live', 'user', answer('get', '/api/v1/cameras', { rows: [camera(), second], next: null }));
    const link = await screen.findByRole('link', { name: 'Gate north' });
    expect(link.getAttribute('href')).toBe(`/cameras/${CAMERA}`);
    expect(screen.getByRole('link', { name: 'Dock' })).toBeTruthy();
    expect(screen.getByText('live')).toBeTruthy();
    // An unavailable camera says so instead of playing.
    expect(screen.getAllByText('Unavailable').length).toBe(1);
  });
});

describe('the feed (/feed)', () => {
  // The stream after the first page: open, saying nothing (the frames are live-feed.ts's tests).
  const quietStream = reply(
    'get',
    '/api/v1/events/stream',
    () =>
      new HttpResponse(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(': open\n\n')) }), {
        headers: { 'content-type': 'text/event-stream' },
      }),
  );
  const cameras = answer('get', '/api/v1/cameras', { rows: [camera()], next: null });
  const firstPage = (rows: ReturnType<typeof event>[]) =>
    answer('get', '/api/v1/events', { rows, next_ts: null, next_id: null, stream_cursor: 'g:42' });

  it('loading', async () => {
    openConsole('/feed', 'user', cameras, reply('get', '/api/v1/events', never));
    expect(await (await page()).findByText('Loading…')).toBeTruthy();
  });

  it('empty: no event matches, the stream live', async () => {
    openConsole('/feed', 'user', cameras, firstPage([]), quietStream);
    expect(await screen.findByText('No event matches.')).toBeTruthy();
    expect(await screen.findByText('live')).toBeTruthy();
    expect(screen.getByText('0 events')).toBeTruthy();
  });

  it('error: the refusal in words', async () => {
    openConsole(
      '/feed',
      'user',
      cameras,
      reply('get', '/api/v1/events', () => refused(503, 'db_unavailable')),
    );
    expect(await screen.findByText('The plane cannot reach its database. Try again shortly.')).toBeTruthy();
  });

  it('data: the count of the page and the filters of the URL', async () => {
    const second = event({ id: '0190c0de-0000-7000-8000-0000000000e2', occurred_at: '2026-11-25T09:00:00.000Z' });
    openConsole('/feed?severity=warning', 'user', cameras, firstPage([event(), second]), quietStream);
    expect(await screen.findByText('2 events')).toBeTruthy();
    // The filter of the address is the one the form shows.
    expect(document.querySelector<HTMLSelectElement>('select[name="severity"]')!.value).toBe('warning');
  });
});

describe('a camera (/cameras/:id)', () => {
  const path = `/cameras/${CAMERA}`;
  // The players ask for a viewer token; these tests read the page, not the video.
  const noVideo = reply('post', '/api/v1/cameras/{id}/play', never);

  it('loading', async () => {
    openConsole(path, 'user', reply('get', '/api/v1/cameras/{id}', never));
    expect(await (await page()).findByText('Loading…')).toBeTruthy();
  });

  it('error: not found or not granted', async () => {
    openConsole(
      path,
      'user',
      reply('get', '/api/v1/cameras/{id}', () => refused(404, 'not_found')),
    );
    expect(await screen.findByText('No such camera, or not yours to see.')).toBeTruthy();
  });

  it('data, not recorded: name, status, its events, no recording form', async () => {
    openConsole(path, 'user', answer('get', '/api/v1/cameras/{id}', camera()), noVideo);
    expect(await screen.findByRole('heading', { name: /Gate north/ })).toBeTruthy();
    expect(screen.getByText(/not recorded/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Events of this camera' }).getAttribute('href')).toBe(
      `/feed?camera=${CAMERA}`,
    );
    expect(screen.queryByRole('button', { name: 'Export' })).toBeNull();
  });

  it('data, recorded: the retention and the range form', async () => {
    openConsole(
      path,
      'user',
      answer('get', '/api/v1/cameras/{id}', camera({ recording: { retention: '7d' } })),
      noVideo,
      reply('get', '/api/v1/events', never),
    );
    expect(await screen.findByText(/recorded, kept 7d/)).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Recording' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Play' })).toBeTruthy();
    expect(screen.getByRole('form', { name: 'Export of Gate north' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Export' })).toBeTruthy();
  });
});

describe("an event's card (/events/:id)", () => {
  const path = `/events/${EVENT}`;

  it('loading', async () => {
    openConsole(path, 'user', reply('get', '/api/v1/events/{id}', never));
    expect(await (await page()).findByText('Loading…')).toBeTruthy();
  });

  it('error: not found or not granted', async () => {
    openConsole(
      path,
      'user',
      reply('get', '/api/v1/events/{id}', () => refused(404, 'not_found')),
    );
    expect(await screen.findByText('No such event, or not yours to see.')).toBeTruthy();
  });

  it('error: purged', async () => {
    openConsole(
      path,
      'user',
      reply('get', '/api/v1/events/{id}', () => refused(410, 'archived_data_expired')),
    );
    expect(await screen.findByText('This event was purged.')).toBeTruthy();
  });

  it('data: the localised title, severity, camera and node, the details, star', async () => {
    openConsole(
      path,
      'user',
      answer('get', '/api/v1/events/{id}', {
        event: event({ detector_title: { en: 'Plate read', fr: 'Plaque lue' } }),
        template: null,
        rendered: { title: null, details: [{ label: 'Plate', value: 'AB-123-CD' }] },
      }),
    );
    expect(await screen.findByRole('heading', { name: /Plate read/ })).toBeTruthy();
    expect(screen.getByText('warning')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Gate north' }).getAttribute('href')).toBe(`/cameras/${CAMERA}`);
    expect(screen.getByText(/node-1/)).toBeTruthy();
    expect(screen.getByText('AB-123-CD')).toBeTruthy();
    expect(screen.getByRole('button', { name: /star/i })).toBeTruthy();
    expect(screen.getByRole('link', { name: '← Events' }).getAttribute('href')).toBe('/feed');
  });

  it('empty: an event without camera, node or details still reads as a card', async () => {
    openConsole(
      path,
      'user',
      answer('get', '/api/v1/events/{id}', {
        event: event({ camera_id: null, camera_name: null, node_id: null, node_name: null, payload: {} }),
        template: null,
        rendered: { title: 'Storage pressure', details: [] },
      }),
    );
    expect(await screen.findByRole('heading', { name: /Storage pressure/ })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'camera' })).toBeNull();
  });
});
