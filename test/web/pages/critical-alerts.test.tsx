// @vitest-environment happy-dom
/**
 * The live alert for critical events over every page (issue 24): off by default (no stream is
 * opened), on in this browser's setting: each new critical event of the live stream is a toast
 * with its title, camera and a link to its card; changes and lower severities are not; Dismiss
 * takes it away.
 */
import { describe, expect, it } from 'vitest';
import { waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { http, mockThePlane, openConsole, screen } from './console.harness.js';
import { ALERT_SETTINGS_KEY } from '../../../web/src/lib/critical-alerts.js';

mockThePlane();

const frame = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  seq: 1,
  org_id: 'o',
  camera_id: 'c',
  camera_name: 'Loading dock',
  node_id: 'n',
  node_name: 'edge-1',
  detector: 'fire.smoke',
  detector_title: 'Smoke',
  category: 'safety',
  severity: 4,
  occurred_at: '2026-11-26T17:00:00.000Z',
  ...over,
});
const ID = (n: number) => `0190c0de-0000-7000-8000-00000000c0${n}0`;

describe('critical alerts in the shell', () => {
  it('off by default: no stream is opened, no toast', async () => {
    let asked = 0;
    openConsole(
      '/no-such-page',
      'user',
      http.get('/api/v1/events/stream', () => {
        asked++;
        return new HttpResponse(null, { status: 500 });
      }),
    );
    expect(await screen.findByText('No such page.')).toBeTruthy();
    expect(asked).toBe(0);
    expect(screen.queryByRole('region', { name: 'Critical events' })).toBeNull();
  });

  it('on: a toast per new critical event, with its card link; Dismiss takes it away', async () => {
    localStorage.setItem(ALERT_SETTINGS_KEY, JSON.stringify({ enabled: true, sound: false }));
    const frames = [
      frame(ID(1)),
      frame(ID(1), { updated: true, severity: 4 }),
      frame(ID(2), { severity: 3, detector_title: 'Motion' }),
      frame(ID(3), { camera_name: '<b>Yard</b>', detector_title: { en: 'Fire' } }),
    ];
    openConsole(
      '/no-such-page',
      'user',
      http.get('/api/v1/events/stream', ({ request }) => {
        expect(new URL(request.url).search).toBe('');
        return new HttpResponse(
          new ReadableStream({
            start: (c) =>
              c.enqueue(
                new TextEncoder().encode(
                  frames.map((f, i) => `id: g:${i + 1}\ndata: ${JSON.stringify(f)}\n\n`).join('') + ': open\n\n',
                ),
              ),
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        );
      }),
    );
    const region = await screen.findByRole('region', { name: 'Critical events' });
    await waitFor(() => expect(region.querySelectorAll('.toast')).toHaveLength(2));
    const [first, second] = [...region.querySelectorAll('.toast')] as HTMLElement[];
    expect(first!.textContent).toMatch(/^Critical: Fire on <b>Yard<\/b> at /);
    expect(second!.textContent).toMatch(/^Critical: Smoke on Loading dock at /);
    expect(within(second!).getByRole('link', { name: 'Open' }).getAttribute('href')).toBe(`/events/${ID(1)}`);
    within(first!).getByRole('button', { name: 'Dismiss' }).click();
    await waitFor(() => expect(region.querySelectorAll('.toast')).toHaveLength(1));
    expect(screen.queryByText(/Motion/)).toBeNull();
  });
});
