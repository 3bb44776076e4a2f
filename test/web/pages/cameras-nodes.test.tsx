// @vitest-environment happy-dom
/**
 * The cameras page (administrators) and the nodes page (superadmin) against a mocked plane (issue
 * 22): loading, empty with the first step, error and data; adding a camera, a refusal said beside
 * its field with what was typed kept, "Test source" and its failures in words, deletion confirmed
 * with the typed name; the nodes page for the superadmin and none of it for an administrator.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { answer, http, mockThePlane, never, ok, page, refused, reply, screen } from './console.harness.js';
import { CAMERA, NODE, camera } from './fixtures.js';
import {
  openConsole,
  TAG,
  tags,
  noTags,
  cameras,
  node,
  nodes,
  field,
  type,
  besideOf,
} from './cameras-nodes.fixtures.js';

mockThePlane();

describe('cameras page: states', () => {
  it('loading', async () => {
    openConsole('/admin/cameras', 'admin', reply('get', '/api/v1/cameras', never), noTags);
    expect(await (await page()).findByText('Loading…')).toBeTruthy();
  });

  it('empty: the administrator is greeted with the next step, and no node list is asked', async () => {
    // No handler for /api/v1/nodes: an administrator asking it would fail the test.
    openConsole('/admin/cameras', 'admin', cameras(), noTags);
    const main = await page();
    expect(await main.findByRole('heading', { name: 'Add your first camera' })).toBeTruthy();
    expect(main.getByRole('button', { name: 'Add camera' })).toBeTruthy();
  });

  it('a fleet without a node greets the superadmin with "Add your first node", linked to the nodes page', async () => {
    openConsole('/admin/cameras', 'superadmin', cameras(), noTags, nodes());
    const main = await page();
    expect(await main.findByRole('heading', { name: 'Add your first node' })).toBeTruthy();
    expect(main.getByRole('link', { name: 'Nodes' }).getAttribute('href')).toBe('/admin/nodes');
    expect(main.queryByRole('button', { name: 'Add camera' })).toBeNull();
  });

  it('error: the refusal in words', async () => {
    openConsole(
      '/admin/cameras',
      'admin',
      reply('get', '/api/v1/cameras', () => refused(503, 'db_unavailable')),
      noTags,
    );
    const alert = await (await page()).findByRole('alert');
    expect(alert.textContent).not.toContain('db_unavailable');
    expect(alert.textContent!.length).toBeGreaterThan(20);
  });

  it('data: each camera with its state, node, tags and recording, linked to its page', async () => {
    openConsole(
      '/admin/cameras',
      'superadmin',
      cameras(
        camera({ tag_ids: [TAG], recording: { retention: '7d' } }),
        camera({ id: '0190c0de-0000-7000-8000-0000000000c2', name: 'Yard', status: 'failing' }),
      ),
      tags,
      nodes(node()),
    );
    const main = await page();
    const row = within((await main.findByText('Gate north')).closest('tr')!);
    expect(row.getByTestId('camera-state').textContent).toBe('live');
    expect(row.getByText('site north')).toBeTruthy();
    expect(row.getByText('north gate')).toBeTruthy();
    expect(row.getByText('kept 7d')).toBeTruthy();
    expect(row.getByRole('link', { name: 'Gate north' }).getAttribute('href')).toBe(`/cameras/${CAMERA}`);
    const yard = within(main.getByText('Yard').closest('tr')!);
    expect(yard.getByTestId('camera-state').textContent).toBe('failing');
    expect(yard.getByText('off')).toBeTruthy();
  });
});

describe('cameras page: ingest figures', () => {
  it("each camera's frame rate, bitrate, size and codec from the latest sweep; none yet says so", async () => {
    const yard = '0190c0de-0000-7000-8000-0000000000c2';
    const stream = (name: string, fps: number, kbps: number) => ({
      name,
      state: 'live',
      fps,
      bitrate_kbps: kbps,
      resolution: '1920x1080',
      codec: 'h264',
    });
    openConsole(
      '/admin/cameras',
      'admin',
      cameras(camera(), camera({ id: yard, name: 'Yard' })),
      noTags,
      answer('get', '/api/v1/cameras/ingest-figures', {
        rows: [
          {
            camera_id: CAMERA,
            sampled_at: '2026-11-26T12:00:00.000Z',
            main: stream(`${CAMERA}_main`, 25, 2048),
            sub: stream(`${CAMERA}_sub`, 7.5, 300),
          },
        ],
      }),
    );
    const main = await page();
    const row = within((await main.findByText('Gate north')).closest('tr')!);
    expect(await row.findByText('25 fps · 2.0 Mbit/s')).toBeTruthy();
    expect(row.getByText('1920x1080 h264')).toBeTruthy();
    expect(row.getByText('sub: 7.5 fps · 300 kbit/s')).toBeTruthy();
    expect(within(main.getByText('Yard').closest('tr')!).getByText('no figures yet')).toBeTruthy();
  });
});

describe('cameras page: add, test, delete', () => {
  it('adds a camera: the form sends what was typed, and the list shows it', async () => {
    const sent: unknown[] = [];
    let rows = [camera()];
    openConsole(
      '/admin/cameras',
      'admin',
      http.get('/api/v1/cameras', () => ok({ rows, next: null })),
      tags,
      http.post('/api/v1/cameras', async ({ request }) => {
        const body = (await request.json()) as { name: string };
        sent.push(body);
        const added = camera({ id: '0190c0de-0000-7000-8000-0000000000c3', name: body.name, status: 'unavailable' });
        rows = [...rows, added];
        return ok(added);
      }),
    );
    fireEvent.click(await (await page()).findByRole('button', { name: 'Add camera' }));
    type('Name', 'Loading bay');
    // An administrator knows the nodes of its cameras: the one node is offered already.
    expect(field('Node').value).toBe(NODE);
    type('Main source', 'rtsp://10.0.0.5/main');
    type('Sub source', 'rtsp://10.0.0.5/sub');
    fireEvent.click(screen.getByLabelText('north gate'));
    type('Retention days', '14');
    fireEvent.click(screen.getByRole('button', { name: 'Save camera' }));
    expect(await screen.findByText('Loading bay was added: its node starts it within seconds.')).toBeTruthy();
    expect(sent).toEqual([
      {
        name: 'Loading bay',
        node_id: NODE,
        main_source: 'rtsp://10.0.0.5/main',
        sub_source: 'rtsp://10.0.0.5/sub',
        tag_ids: [TAG],
        recording: { retention: '14d' },
      },
    ]);
    expect(await screen.findByRole('link', { name: 'Loading bay' })).toBeTruthy();
    expect(screen.queryByLabelText('Main source')).toBeNull();
  });

  it('a refused add keeps what was typed, the sentence beside the field it concerns', async () => {
    openConsole(
      '/admin/cameras',
      'superadmin',
      cameras(camera()),
      tags,
      nodes(node()),
      reply('post', '/api/v1/cameras', () => refused(400, 'bad_source_url')),
    );
    fireEvent.click(await (await page()).findByRole('button', { name: 'Add camera' }));
    type('Name', 'Loading bay');
    fireEvent.change(field('Node'), { target: { value: NODE } });
    type('Main source', 'ftp://10.0.0.5/main');
    fireEvent.click(screen.getByRole('button', { name: 'Save camera' }));
    await waitFor(() =>
      expect(besideOf('Main source')).toBe(
        'The camera source is not a valid address (rtsp, rtmp or http, with or without TLS), or it points to a refused network.',
      ),
    );
    expect(besideOf('Name')).toBeNull();
    expect(field('Name').value).toBe('Loading bay');
    expect(field('Main source').value).toBe('ftp://10.0.0.5/main');
    expect(field('Node').value).toBe(NODE);
    expect(document.body.textContent).not.toContain('bad_source_url');
  });

  it('a name already taken is said beside the name', async () => {
    openConsole(
      '/admin/cameras',
      'admin',
      cameras(camera()),
      noTags,
      reply('post', '/api/v1/cameras', () => refused(409, 'already_exists')),
    );
    fireEvent.click(await (await page()).findByRole('button', { name: 'Add camera' }));
    type('Name', 'Gate north');
    type('Main source', 'rtsp://10.0.0.5/main');
    fireEvent.click(screen.getByRole('button', { name: 'Save camera' }));
    await waitFor(() => expect(besideOf('Name')).toBe('That name is already taken: choose another.'));
    expect(field('Name').value).toBe('Gate north');
  });

  it('"Test source" shows codec, resolution and frame rate, or why not in words', async () => {
    const probes: unknown[] = [];
    let answerWith: () => Response = () =>
      ok({ ok: true, video: { codec: 'h264', width: 640, height: 360, fps: 15 }, audio: null, error: null });
    openConsole(
      '/admin/cameras',
      'admin',
      cameras(camera()),
      noTags,
      http.post('/api/v1/cameras/probe', async ({ request }) => {
        probes.push(await request.json());
        return answerWith();
      }),
    );
    fireEvent.click(await (await page()).findByRole('button', { name: 'Add camera' }));
    const test = screen.getByRole('button', { name: 'Test source' });
    type('Main source', 'testsrc://demo?size=640x360&rate=15');
    fireEvent.click(test);
    expect(await screen.findByText('h264, 640×360, 15 fps, no audio.')).toBeTruthy();
    expect(probes).toEqual([{ node_id: NODE, url: 'testsrc://demo?size=640x360&rate=15' }]);

    answerWith = () => ok({ ok: false, video: null, audio: null, error: 'the camera refused the login' });
    fireEvent.click(test);
    expect(await screen.findByText('The node could not read this source: the camera refused the login.')).toBeTruthy();

    answerWith = () => refused(502, 'node_unreachable');
    fireEvent.click(test);
    const status = screen.getByRole('status', { name: 'Source test' });
    await waitFor(() => expect(status.textContent).toMatch(/node/i));
    expect(status.textContent).not.toContain('node_unreachable');
    expect(status.textContent).not.toContain('640');
  });

  it('"Snapshot" shows one picture of the typed source, or why not in words; a hidden password is not sent', async () => {
    const asked: unknown[] = [];
    // A 1x1 JPEG is enough: the page shows what the node read, it does not decode it.
    const jpeg =
      '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////2wBDAf//////////////////////////////////////////////////////////////////////////////////////wAARCAABAAEDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAP/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAAAP/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AKAA/9k=';
    let answerWith: () => Response = () => ok({ ok: true, image: jpeg, error: null });
    openConsole(
      '/admin/cameras',
      'admin',
      cameras(camera()),
      noTags,
      http.post('/api/v1/cameras/probe/snapshot', async ({ request }) => {
        asked.push(await request.json());
        return answerWith();
      }),
    );
    fireEvent.click(await (await page()).findByRole('button', { name: 'Add camera' }));
    const snap = screen.getByRole('button', { name: 'Snapshot' });
    type('Main source', 'rtsp://10.0.0.9/main');
    fireEvent.click(snap);
    const img = (await screen.findByRole('img', { name: 'Snapshot of the main source' })) as HTMLImageElement;
    expect(img.src).toBe(`data:image/jpeg;base64,${jpeg}`);
    expect(asked).toEqual([{ node_id: NODE, url: 'rtsp://10.0.0.9/main' }]);

    answerWith = () => ok({ ok: false, image: null, error: 'the source sent no video within 10 s' });
    fireEvent.click(snap);
    expect(await screen.findByText('No picture: the source sent no video within 10 s.')).toBeTruthy();
    expect(screen.queryByRole('img', { name: 'Snapshot of the main source' })).toBeNull();

    type('Main source', 'rtsp://admin:***@10.0.0.9/main');
    expect((snap as HTMLButtonElement).disabled).toBe(true);
  });

  it('edit sends the changed camera; a retention kept in hours stays unless the days are changed', async () => {
    const patched: unknown[] = [];
    const masked = 'rtsp://admin:***@10.0.0.5/main';
    openConsole(
      '/admin/cameras',
      'admin',
      cameras(camera({ main_source: masked, recording: { retention: '12h' } })),
      tags,
      http.patch('/api/v1/cameras/:id', async ({ request, params }) => {
        patched.push({ id: params.id, body: await request.json() });
        return ok(camera({ name: 'Gate south', main_source: masked, recording: { retention: '12h' } }));
      }),
    );
    fireEvent.click(await (await page()).findByRole('button', { name: 'Edit Gate north' }));
    expect(field('Name').value).toBe('Gate north');
    expect(field('Main source').value).toBe(masked);
    expect(field('Retention days').value).toBe('');
    expect(field('Retention days').placeholder).toBe('12h');
    // No handler for the probe: a masked password is not sent to be tried.
    fireEvent.click(screen.getByRole('button', { name: 'Test source' }));
    expect(screen.getByRole('status', { name: 'Source test' }).textContent).toBe(
      "The source's password is hidden (***): type it again to test the source.",
    );
    type('Name', 'Gate south');
    fireEvent.click(screen.getByLabelText('north gate'));
    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('Gate south was changed.')).toBeTruthy();
    // The masked source goes back as read (the plane keeps the stored one); no recording: untouched.
    expect(patched).toEqual([
      {
        id: CAMERA,
        body: { name: 'Gate south', node_id: NODE, main_source: masked, sub_source: null, tag_ids: [TAG] },
      },
    ]);
  });

  it("delete asks for the camera's name typed before it sends anything", async () => {
    const deleted: string[] = [];
    openConsole(
      '/admin/cameras',
      'admin',
      cameras(camera()),
      noTags,
      http.delete('/api/v1/cameras/:id', ({ params }) => {
        deleted.push(String(params.id));
        return ok({ deleted: true });
      }),
    );
    const row = within((await (await page()).findByText('Gate north')).closest('tr')!);
    fireEvent.click(row.getByRole('button', { name: 'Delete' }));
    const dialog = within(screen.getByRole('dialog'));
    const confirm = dialog.getByRole<HTMLButtonElement>('button', { name: 'Delete' });
    expect(confirm.disabled).toBe(true);
    fireEvent.change(dialog.getByLabelText('Type Gate north to confirm'), { target: { value: 'Gate' } });
    expect(confirm.disabled).toBe(true);
    fireEvent.click(confirm);
    expect(deleted).toEqual([]);
    fireEvent.change(dialog.getByLabelText('Type Gate north to confirm'), { target: { value: 'Gate north' } });
    expect(confirm.disabled).toBe(false);
    fireEvent.click(confirm);
    expect(await screen.findByText('Gate north was deleted.')).toBeTruthy();
    expect(deleted).toEqual([CAMERA]);
  });
});
