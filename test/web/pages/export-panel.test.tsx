// @vitest-environment happy-dom
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { answer, mockThePlane, never, openConsole, page, refused, reply } from './console.harness.js';
import { CAMERA, camera } from './fixtures.js';
import { CAMERAS, recordings, T0 } from './review.fixtures.js';

// Issue 23, exports in the console: GET /api/v1/cameras/{id}/export through the plane with the
// session's bearer token; "Preparing…" until the first byte (the node builds the file first),
// then the bytes received of Content-Length; the file saved under the Content-Disposition name;
// a refusal said as a sentence with the form as typed; Cancel aborts.
mockThePlane();

/**
 * The browser's downloads as the test sees them: the link the console clicks to save a file (happy-dom
 * would follow it as a navigation; a browser saves it under `download`).
 */
const downloads: Array<{ name: string; href: string }> = [];
beforeAll(() =>
  document.addEventListener('click', (e) => {
    const a = e.target instanceof HTMLAnchorElement && e.target.hasAttribute('download') ? e.target : null;
    if (!a) return;
    e.preventDefault();
    downloads.push({ name: a.download, href: a.href });
  }),
);
afterEach(() => {
  downloads.length = 0;
});

const CAM = CAMERAS[0]!;
const withSub = { ...CAM, sub_source: 'rtsp://cam/sub' };
const list = answer('get', '/api/v1/cameras', { rows: [withSub, ...CAMERAS.slice(1)], next: null });
const FILE = 'Camera 1_2026-11-26_11-02-00_1m.mp4';
const AT = T0 + 120_000;

/** The review at T0 with camera 1, and its export panel opened from its tile. */
async function exportPanel(...handlers: Parameters<typeof openConsole>[2][]) {
  openConsole(
    `/review?cameras=${CAM.id}&from=${new Date(T0).toISOString()}`,
    'user',
    list,
    ...recordings({}),
    ...handlers,
  );
  const main = await page();
  const tile = await main.findByRole('figure');
  // Paused and moved to 10:02 UTC on the scrub bar: the export starts at the clock's moment.
  fireEvent.click(main.getByRole('button', { name: 'Pause' }));
  fireEvent.change(main.getByRole('slider', { name: 'Review position' }), { target: { value: String(AT / 1000) } });
  fireEvent.click(within(tile).getByRole('button', { name: 'Export' }));
  return within(await main.findByRole('form', { name: 'Export of Camera 1' }));
}

/** A reply whose body the test sends piece by piece. */
function controlledBody() {
  let control!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      control = c;
    },
  });
  return { body, send: (n: number) => control.enqueue(new Uint8Array(n)), end: () => control.close() };
}

describe('an export from the console', () => {
  it("says Preparing…, then the bytes received of the total, and saves the file under the plane's name", async () => {
    const reply = controlledBody();
    let asked: URL | null = null;
    let bearer: string | null = null;
    const form = await exportPanel(
      http.get('/api/v1/cameras/:id/export', ({ request }) => {
        asked = new URL(request.url);
        bearer = request.headers.get('authorization');
        return new HttpResponse(reply.body, {
          headers: {
            'content-type': 'video/mp4',
            'content-length': '4096',
            'content-disposition': `attachment; filename="export.mp4"; filename*=UTF-8''${encodeURIComponent(FILE)}`,
          },
        });
      }),
    );
    // Opened at the clock's moment, in the user's zone (the plane's default: the browser's).
    const from = form.getByLabelText(/^From/) as HTMLInputElement;
    expect(Date.parse(from.value)).toBe(AT);
    fireEvent.change(form.getByLabelText('Duration (seconds)'), { target: { value: '60' } });
    fireEvent.change(form.getByLabelText('Stream'), { target: { value: 'sub' } });
    fireEvent.click(form.getByRole('button', { name: 'Export' }));
    expect(await form.findByText('Preparing…')).toBeTruthy();
    expect(asked!.pathname).toBe(`/api/v1/cameras/${CAM.id}/export`);
    expect(Object.fromEntries(asked!.searchParams)).toEqual({
      from: new Date(AT).toISOString(),
      duration: '60',
      stream: 'sub',
    });
    expect(bearer).toBe('Bearer session-of-user');
    expect(form.getByRole('button', { name: 'Export' })).toHaveProperty('disabled', true);

    reply.send(2048);
    expect(await form.findByText('2.0 KB of 4.0 KB (50 %)')).toBeTruthy();
    const bar = form.getByRole('progressbar', { name: 'Export progress' });
    expect(bar.getAttribute('value')).toBe('2048');
    expect(bar.getAttribute('max')).toBe('4096');

    reply.send(2048);
    reply.end();
    expect(await form.findByText(`Saved ${FILE} (4.0 KB).`)).toBeTruthy();
    expect(downloads).toHaveLength(1);
    expect(downloads[0]!.name).toBe(FILE);
    expect(downloads[0]!.href).toMatch(/^blob:/);
    expect(form.queryByRole('progressbar')).toBeNull();
    expect(form.getByRole('button', { name: 'Export' })).toHaveProperty('disabled', false);
  });

  it('asks for the signed zip with manifest=1 and offers no sub stream to a camera without one', async () => {
    let asked: URL | null = null;
    openConsole(
      `/review?cameras=${CAMERAS[1]!.id}&from=${new Date(T0).toISOString()}`,
      'user',
      list,
      ...recordings({}),
      http.get('/api/v1/cameras/:id/export', ({ request }) => {
        asked = new URL(request.url);
        return new HttpResponse(new Uint8Array(10), {
          headers: { 'content-type': 'application/zip', 'content-disposition': 'attachment; filename="Camera 2.zip"' },
        });
      }),
    );
    const main = await page();
    fireEvent.click(within(await main.findByRole('figure')).getByRole('button', { name: 'Export' }));
    const form = within(await main.findByRole('form', { name: 'Export of Camera 2' }));
    const stream = form.getByLabelText('Stream') as HTMLSelectElement;
    expect([...stream.options].map((o) => o.value)).toEqual(['main']);
    fireEvent.click(form.getByRole('checkbox', { name: 'Signed (zip with manifest)' }));
    fireEvent.click(form.getByRole('button', { name: 'Export' }));
    expect(await form.findByText('Saved Camera 2.zip (10 B).')).toBeTruthy();
    expect(downloads.map((d) => d.name)).toEqual(['Camera 2.zip']);
    expect(asked!.searchParams.get('manifest')).toBe('1');
    expect(asked!.searchParams.get('stream')).toBe('main');
  });

  it('says a refusal as a sentence and keeps what was typed', async () => {
    const form = await exportPanel(
      http.get('/api/v1/cameras/:id/export', () => refused(400, 'export_too_long', { max_secs: 600 })),
    );
    const from = form.getByLabelText(/^From/) as HTMLInputElement;
    fireEvent.change(from, { target: { value: '2026-11-26T09:30:15' } });
    fireEvent.change(form.getByLabelText('Duration (seconds)'), { target: { value: '900' } });
    fireEvent.click(form.getByRole('checkbox', { name: 'Signed (zip with manifest)' }));
    fireEvent.click(form.getByRole('button', { name: 'Export' }));
    expect((await form.findByRole('alert')).textContent).toBe(
      'Export refused: An export may be at most 10 minutes long: choose a shorter range.',
    );
    expect(from.value).toBe('2026-11-26T09:30:15');
    expect(form.getByLabelText('Duration (seconds)')).toHaveProperty('value', '900');
    expect(form.getByRole('checkbox', { name: 'Signed (zip with manifest)' })).toHaveProperty('checked', true);
    expect(form.queryByText(/export_too_long/)).toBeNull();
  });

  it('asks nothing for a duration out of bounds, and Cancel stops a download', async () => {
    const reply = controlledBody();
    let asks = 0;
    const form = await exportPanel(
      http.get('/api/v1/cameras/:id/export', () => {
        asks += 1;
        return new HttpResponse(reply.body, { headers: { 'content-type': 'video/mp4' } });
      }),
    );
    // A duration out of bounds: the browser's own check holds the form back (no request).
    const duration = form.getByLabelText('Duration (seconds)') as HTMLInputElement;
    fireEvent.change(duration, { target: { value: '0' } });
    fireEvent.click(form.getByRole('button', { name: 'Export' }));
    expect(duration.checkValidity()).toBe(false);
    expect(asks).toBe(0);
    fireEvent.change(form.getByLabelText('Duration (seconds)'), { target: { value: '30' } });
    fireEvent.click(form.getByRole('button', { name: 'Export' }));
    reply.send(1000);
    // No Content-Length: the bytes so far, without a share.
    expect(await form.findByText('1000 B received')).toBeTruthy();
    fireEvent.click(form.getByRole('button', { name: 'Cancel' }));
    expect(await form.findByText('Export cancelled.')).toBeTruthy();
    await waitFor(() => expect(form.queryByRole('button', { name: 'Cancel' })).toBeNull());
    expect(asks).toBe(1);
    expect(downloads).toEqual([]);
  });

  it("on a camera's page: the panel in place of the node's link, its sub stream offered, the file saved", async () => {
    let asked: URL | null = null;
    openConsole(
      `/cameras/${CAMERA}`,
      'user',
      answer('get', '/api/v1/cameras/{id}', camera({ recording: { retention: '7d' }, sub_source: 'rtsp://cam/sub' })),
      reply('post', '/api/v1/cameras/{id}/play', never),
      reply('get', '/api/v1/events', never),
      http.get('/api/v1/cameras/:id/export', ({ request }) => {
        asked = new URL(request.url);
        return new HttpResponse(new Uint8Array(2048), {
          headers: {
            'content-type': 'video/mp4',
            'content-length': '2048',
            'content-disposition': 'attachment; filename="Gate north_2026-11-26_10-00-00_5m.mp4"',
          },
        });
      }),
    );
    const main = await page();
    const form = within(await main.findByRole('form', { name: 'Export of Gate north' }));
    expect(main.queryByRole('button', { name: 'Export MP4' })).toBeNull();
    fireEvent.change(form.getByLabelText(/^From/), { target: { value: '2026-11-26T10:00:00' } });
    fireEvent.change(form.getByLabelText('Duration (seconds)'), { target: { value: '300' } });
    fireEvent.change(form.getByLabelText('Stream'), { target: { value: 'sub' } });
    fireEvent.click(form.getByRole('button', { name: 'Export' }));
    expect(await form.findByText('Saved Gate north_2026-11-26_10-00-00_5m.mp4 (2.0 KB).')).toBeTruthy();
    expect(downloads.map((d) => d.name)).toEqual(['Gate north_2026-11-26_10-00-00_5m.mp4']);
    expect(asked!.pathname).toBe(`/api/v1/cameras/${CAMERA}/export`);
    expect(asked!.searchParams.get('stream')).toBe('sub');
    expect(asked!.searchParams.get('duration')).toBe('300');
  });
});
