// @vitest-environment happy-dom
/**
 * Destructive actions confirm with the object's name (issue 22): a person, a tag, an organisation,
 * a module token, a template, a dashboard. The confirm button stays disabled until the name is typed exactly;
 * a refusal is said in words inside the dialog, the typed name kept; no browser confirm() or prompt().
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { answer, http, mockThePlane, ok, openConsole, ORG, refused, reply, screen } from './console.harness.js';
import { board, BOARD, organisation, OTHER_ORG, person, template, token } from './admin-fixtures.js';

mockThePlane();

// The browser's own dialogs are not how the console asks: any call fails the test.
const native = { confirm: window.confirm, prompt: window.prompt };
beforeAll(() => {
  window.confirm = () => {
    throw new Error('window.confirm() called');
  };
  window.prompt = () => {
    throw new Error('window.prompt() called');
  };
});
afterAll(() => Object.assign(window, native));

/** Opens the dialog of `button` in `row`, types `typed`, and returns the dialog and its confirm button. */
async function confirmIn(row: HTMLElement, button: string, typed: string) {
  fireEvent.click(within(row).getByRole('button', { name: button }));
  const dialog = within(await screen.findByRole('dialog'));
  const go = dialog.getAllByRole<HTMLButtonElement>('button', { name: button }).at(-1)!;
  expect(go.disabled).toBe(true);
  fireEvent.change(dialog.getByRole('textbox'), { target: { value: typed } });
  return { dialog, go };
}

describe('deleting asks for the name', () => {
  it('a person: disabled until the login is typed exactly, then DELETE; Cancel sends nothing', async () => {
    const deleted: string[] = [];
    const op = person('op-north', 'user');
    openConsole(
      '/admin/people',
      'admin',
      answer('get', '/api/v1/users', { rows: [op], next: null }),
      answer('get', '/api/v1/tags', { rows: [], next: null }),
      http.delete('/api/v1/users/:id', ({ params }) => {
        deleted.push(String(params.id));
        return ok({ id: params.id, deleted: true });
      }),
    );
    const row = (await screen.findByText('op-north')).closest('tr')!;
    const first = await confirmIn(row, 'Delete', 'op-nort');
    expect(first.dialog.getByLabelText('Type op-north to confirm')).toBeTruthy();
    expect(first.go.disabled).toBe(true);
    fireEvent.click(first.dialog.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    const { go } = await confirmIn(row, 'Delete', 'op-north');
    expect(go.disabled).toBe(false);
    fireEvent.click(go);
    await waitFor(() => expect(deleted).toEqual([op.id]));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('an organisation the plane refuses: the sentence in the dialog, the typed name kept', async () => {
    openConsole(
      '/admin/orgs',
      'superadmin',
      answer('get', '/api/v1/orgs', {
        rows: [organisation(ORG, 'Home'), organisation(OTHER_ORG, 'Harbour')],
        next: null,
      }),
      reply('delete', '/api/v1/orgs/{id}', () => refused(409, 'org_not_empty')),
    );
    const row = (await screen.findByLabelText('Harbour name')).closest('tr')!;
    const { dialog, go } = await confirmIn(row, 'Delete', 'Harbour');
    fireEvent.click(go);
    expect((await dialog.findByRole('alert')).textContent).toBe(
      'The organisation still holds people, cameras or other objects: remove them first.',
    );
    expect(dialog.getByRole<HTMLInputElement>('textbox').value).toBe('Harbour');
    expect(screen.getByRole('dialog')).toBeTruthy();
  });

  it('a module token', async () => {
    const deleted: string[] = [];
    openConsole(
      '/admin/tokens',
      'admin',
      answer('get', '/api/v1/module-tokens', { rows: [token('lpr-gate-2')], next: null }),
      http.delete('/api/v1/module-tokens/:id', ({ params }) => {
        deleted.push(String(params.id));
        return ok({ id: params.id, deleted: true });
      }),
    );
    const row = (await screen.findByText('lpr-gate-2')).closest('tr')!;
    const { dialog, go } = await confirmIn(row, 'Delete', 'lpr-gate-2');
    expect(dialog.getByText('Its module can no longer send.')).toBeTruthy();
    fireEvent.click(go);
    await waitFor(() => expect(deleted).toEqual([token('x').id]));
  });

  it("an organisation's template; a system template offers no Delete", async () => {
    const deleted: string[] = [];
    const mine = template('Plates');
    openConsole(
      '/admin/templates',
      'admin',
      answer('get', '/api/v1/templates', { rows: [mine, template('Built-in', true)], next: null }),
      answer('get', '/api/v1/templates/{id}/matches', { window_days: 7, distinct: 0, detectors: [] }),
      http.delete('/api/v1/templates/:id', ({ params }) => {
        deleted.push(String(params.id));
        return ok({ id: params.id, deleted: true });
      }),
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Built-in' }));
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Plates' }));
    const editor = document.querySelector<HTMLElement>('.editor')!;
    const { go } = await confirmIn(editor, 'Delete', 'Plates');
    fireEvent.click(go);
    await waitFor(() => expect(deleted).toEqual([mine.id]));
  });

  it('a tag', async () => {
    const deleted: string[] = [];
    const TAG = '0190c0de-0000-7000-8000-0000000000a7';
    openConsole(
      '/admin/people',
      'admin',
      answer('get', '/api/v1/users', { rows: [], next: null }),
      answer('get', '/api/v1/tags', { rows: [{ id: TAG, org_id: ORG, name: 'perimeter' }], next: null }),
      http.delete('/api/v1/tags/:id', ({ params }) => {
        deleted.push(String(params.id));
        return ok({ id: params.id, deleted: true });
      }),
    );
    const item = (await screen.findByDisplayValue('perimeter')).closest('li')!;
    const { go } = await confirmIn(item, 'delete', 'perimeter');
    fireEvent.click(go);
    await waitFor(() => expect(deleted).toEqual([TAG]));
  });

  it('a dashboard (administrators, while editing): deleted, then the list', async () => {
    const deleted: string[] = [];
    const { router } = openConsole(
      `/dashboards/${BOARD}`,
      'admin',
      answer('get', '/api/v1/analytics-dashboards/{id}', board('Entrances')),
      answer('get', '/api/v1/analytics-dashboards', { rows: [] }),
      // The edit form offers the organisation's people as an audience.
      answer('get', '/api/v1/users', { rows: [], next: null }),
      http.delete('/api/v1/analytics-dashboards/:id', ({ params }) => {
        deleted.push(String(params.id));
        return ok({ id: params.id, deleted: true });
      }),
    );
    await screen.findByRole('heading', { name: 'Entrances' });
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const head = document.querySelector<HTMLElement>('.dash-head')!;
    const { go } = await confirmIn(head, 'Delete', 'Entrances');
    fireEvent.click(go);
    await waitFor(() => expect(deleted).toEqual([BOARD]));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboards'));
  });
});
