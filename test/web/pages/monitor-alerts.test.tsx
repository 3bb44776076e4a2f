// @vitest-environment happy-dom
/**
 * The fleet monitor's alerts name what they count (issue 22): the summary answers counts only, so
 * the page names them from the nodes' frames, the cameras' statuses and, while a licence alert is
 * up, the nodes' licences, against a mocked plane.
 */
import { describe, expect, it } from 'vitest';
import { HttpResponse } from 'msw';
import { answer, http, mockThePlane, never, openConsole, refused, reply, screen } from './console.harness.js';
import { camera, NODE } from './fixtures.js';

mockThePlane();

const WEST = '0190c0de-0000-7000-8000-0000000000d2';
const summary = {
  seq: 7,
  sampled_at: '2026-11-25T20:00:00.000Z',
  nodes_total: 2,
  nodes_reachable: 1,
  stream_samples_stale: 0,
  streams_total: 4,
  streams_live: 3,
  streams_degraded: 0,
  streams_failing: 1,
  cameras_total: 3,
  cameras_live: 1,
  cameras_unavailable: 1,
  cameras_degraded: 0,
  cameras_failing: 1,
  nodes_unlicensed: 0,
  nodes_grace: 1,
};
const node = (id: string, name: string, state: string) => ({
  id,
  name,
  url: `http://${name}:8554`,
  enabled: true,
  state,
  last_seen_at: null,
  version: null,
  api_token_configured: true,
  auth_backend_secret_configured: false,
});
/** An event stream that sends `frames` and stays open. */
const sse = (...frames: object[]) =>
  new HttpResponse(
    new ReadableStream({
      start: (c) =>
        c.enqueue(
          new TextEncoder().encode(frames.map((f, i) => `id: ${i + 1}\ndata: ${JSON.stringify(f)}\n\n`).join('')),
        ),
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );
const frame = (node_id: string, reachable: boolean, failing: number) => ({
  seq: 7,
  node_id,
  attempted_at: '2026-11-25T20:00:00.000Z',
  last_seen_at: null,
  reachable,
  system_telemetry: reachable
    ? {
        cpus: 4,
        proc_cpu_cores: 0.2,
        host_cpu_busy_pct: 10,
        mem_total_mb: 4096,
        mem_available_mb: 2048,
        rss_mb: 90,
        stream_counts: { total: 4, live: 4 - failing, degraded: 0, failing },
      }
    : null,
  storage_telemetry: null,
  errors: reachable ? [] : ['connect ECONNREFUSED'],
});

describe('fleet monitor alerts (/admin/monitor)', () => {
  it('name the nodes that did not answer, the nodes with failing streams, the cameras, the licences', async () => {
    openConsole(
      '/admin/monitor',
      'superadmin',
      answer('get', '/api/v1/monitor/fleet/summary', summary),
      http.get('/api/v1/monitor/fleet/summary/stream', () => sse()),
      http.get('/api/v1/monitor/nodes', () => sse(frame(NODE, true, 1), frame(WEST, false, 0))),
      reply('get', '/api/v1/monitor/plane', never),
      reply('get', '/api/v1/logs/plane', never),
      answer('get', '/api/v1/nodes', {
        rows: [node(NODE, 'node-east', 'reachable'), node(WEST, 'node-west', 'unreachable')],
        next: null,
      }),
      answer('get', '/api/v1/cameras', {
        rows: [
          camera({ name: 'Gate north', status: 'failing' }),
          camera({ id: '0190c0de-0000-7000-8000-0000000000c2', name: 'Dock', status: 'unavailable' }),
          camera({ id: '0190c0de-0000-7000-8000-0000000000c3', name: 'Lobby', status: 'live' }),
        ],
        next: null,
      }),
      http.get('/api/v1/nodes/:id/license', ({ params }) =>
        HttpResponse.json({
          state: params.id === WEST ? 'grace' : 'ok',
          licensee: null,
          expires: null,
          updates_until: null,
          build_date: null,
        }),
      ),
    );
    const alerts = await screen.findByRole('status');
    const lines = async () =>
      [...(await screen.findByRole('status')).querySelectorAll('li')].map((li) => li.textContent);
    await screen.findByText('1 of 2 nodes did not answer: node-west');
    expect(alerts.tagName).toBe('UL');
    await screen.findByText('licences: 0 unlicensed, 1 in grace (node-west)');
    expect(await lines()).toEqual([
      '1 of 2 nodes did not answer: node-west',
      '1 stream failing: on node-east (1)',
      '1 camera failing: Gate north',
      '1 camera unavailable: Dock',
      'licences: 0 unlicensed, 1 in grace (node-west)',
    ]);
  });
});

describe('fleet monitor states (/admin/monitor)', () => {
  const quiet = [
    http.get('/api/v1/monitor/fleet/summary/stream', () => sse()),
    http.get('/api/v1/monitor/nodes', () => sse()),
    reply('get', '/api/v1/monitor/plane', never),
    reply('get', '/api/v1/logs/plane', never),
    answer('get', '/api/v1/cameras', { rows: [], next: null }),
  ];

  it('loading: the summary and the nodes say they are read', async () => {
    openConsole(
      '/admin/monitor',
      'superadmin',
      reply('get', '/api/v1/monitor/fleet/summary', never),
      reply('get', '/api/v1/nodes', never),
      ...quiet,
    );
    expect(await screen.findByText('Loading the fleet summary…')).toBeTruthy();
    expect(screen.getByText('Loading nodes…')).toBeTruthy();
  });

  it('error: refused reads are sentences with Try again, never codes', async () => {
    openConsole(
      '/admin/monitor',
      'superadmin',
      reply('get', '/api/v1/monitor/fleet/summary', () => refused(503, 'db_unavailable')),
      reply('get', '/api/v1/nodes', () => refused(503, 'db_unavailable')),
      ...quiet,
    );
    await screen.findByText(/^The fleet summary could not be read: /);
    const alerts = await screen.findAllByRole('alert');
    expect(alerts.map((a) => a.textContent!.split(':')[0])).toEqual([
      'The fleet summary could not be read',
      'The nodes could not be read',
    ]);
    for (const a of alerts) expect(a.textContent).not.toContain('db_unavailable');
  });

  it('empty: a fleet without nodes says where to add one', async () => {
    openConsole(
      '/admin/monitor',
      'superadmin',
      answer('get', '/api/v1/monitor/fleet/summary', { ...summary, nodes_total: 0, nodes_reachable: 0 }),
      answer('get', '/api/v1/nodes', { rows: [], next: null }),
      ...quiet,
    );
    expect(await screen.findByText('No node yet: add the first on the Nodes page.')).toBeTruthy();
  });
});
