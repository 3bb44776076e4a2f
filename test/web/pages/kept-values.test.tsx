// @vitest-environment happy-dom
/**
 * A refused form keeps what was typed (issue 22), its sentence beside the field it concerns: adding
 * a person, an organisation, a tag, a template; another's password, typed twice in a form (no
 * prompt()), checked before sending.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { answer, http, mockThePlane, ok, openConsole, refused, reply, screen } from './console.harness.js';
import { person } from './admin-fixtures.js';

mockThePlane();

const people = (...rows: ReturnType<typeof person>[]) => [
  answer('get', '/api/v1/users', { rows, next: null }),
  answer('get', '/api/v1/tags', { rows: [], next: null }),
];
const value = (name: string) => document.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${name}"]`)!.value;

describe('adding a person', () => {
  it('a login already taken: the sentence beside Login, every field kept', async () => {
    openConsole(
      '/admin/people',
      'admin',
      ...people(),
      reply('post', '/api/v1/users', () => refused(409, 'already_exists')),
    );
    const add = within(await screen.findByRole('form', { name: 'Add person' }));
    fireEvent.change(add.getByLabelText('Login'), { target: { value: 'op-north' } });
    fireEvent.change(add.getByLabelText('Name'), { target: { value: 'North gate' } });
    fireEvent.change(add.getByLabelText('Password'), { target: { value: 'operator-password-1' } });
    fireEvent.change(add.getByLabelText('Role'), { target: { value: 'admin' } });
    fireEvent.click(add.getByRole('button', { name: 'Add person' }));
    const alert = await add.findByRole('alert');
    expect(alert.textContent).toBe('That name is already taken: choose another.');
    expect(add.getByLabelText('Login').getAttribute('aria-describedby')).toContain(alert.id);
    expect([value('user-login'), value('user-name'), value('user-password'), value('user-role')]).toEqual([
      'op-north',
      'North gate',
      'operator-password-1',
      'admin',
    ]);
  });

  it('accepted: the form is emptied', async () => {
    openConsole(
      '/admin/people',
      'admin',
      ...people(),
      http.post('/api/v1/users', () => ok(person('op-north', 'user'))),
    );
    const add = within(await screen.findByRole('form', { name: 'Add person' }));
    fireEvent.change(add.getByLabelText('Login'), { target: { value: 'op-north' } });
    fireEvent.change(add.getByLabelText('Password'), { target: { value: 'operator-password-1' } });
    fireEvent.click(add.getByRole('button', { name: 'Add person' }));
    await waitFor(() => expect(value('user-login')).toBe(''));
  });
});

describe("another's password (administrators)", () => {
  const op = person('op-north', 'user');

  it('typed twice in a form: a mismatch is said and nothing sent; a refusal is said beside it, kept; then set', async () => {
    const sent: unknown[] = [];
    let refuse = true;
    openConsole(
      '/admin/people',
      'admin',
      ...people(op),
      http.patch('/api/v1/users/:id', async ({ request }) => {
        sent.push(await request.json());
        return refuse ? refused(400, 'bad_password', { field: 'password' }) : ok(op);
      }),
    );
    fireEvent.click(
      within((await screen.findByText('op-north')).closest('tr')!).getByRole('button', { name: 'Password' }),
    );
    const form = within(await screen.findByRole('form', { name: 'New password for op-north' }));
    fireEvent.change(form.getByLabelText('New password'), { target: { value: 'pass-one-1' } });
    fireEvent.change(form.getByLabelText('Confirm the new password'), { target: { value: 'pass-two-2' } });
    fireEvent.click(form.getByRole('button', { name: 'Set password' }));
    expect((await form.findByRole('alert')).textContent).toBe('The two passwords differ: type the same one twice.');
    expect(sent).toEqual([]);

    fireEvent.change(form.getByLabelText('Confirm the new password'), { target: { value: 'pass-one-1' } });
    fireEvent.click(form.getByRole('button', { name: 'Set password' }));
    await waitFor(() =>
      expect(form.getByRole('alert').textContent).toMatch(/^The password is not accepted: use 8 to 1,024 characters\./),
    );
    expect(sent).toEqual([{ password: 'pass-one-1' }]);
    expect(value('reset-password')).toBe('pass-one-1');
    expect(value('reset-confirm')).toBe('pass-one-1');

    refuse = false;
    fireEvent.click(form.getByRole('button', { name: 'Set password' }));
    await waitFor(() => expect(screen.queryByRole('form', { name: 'New password for op-north' })).toBeNull());
    expect(sent).toHaveLength(2);
  });
});

describe('other forms', () => {
  it('an organisation: the refused name stays, its sentence beside it', async () => {
    openConsole(
      '/admin/orgs',
      'superadmin',
      answer('get', '/api/v1/orgs', { rows: [], next: null }),
      reply('post', '/api/v1/orgs', () => refused(409, 'already_exists')),
    );
    const add = within(await screen.findByRole('form', { name: 'Add organisation' }));
    fireEvent.change(add.getByLabelText('Name'), { target: { value: 'Harbour' } });
    fireEvent.click(add.getByRole('button', { name: 'Add organisation' }));
    const alert = await add.findByRole('alert');
    expect(alert.textContent).toBe('That name is already taken: choose another.');
    expect(add.getByLabelText('Name').getAttribute('aria-describedby')).toContain(alert.id);
    expect(value('org-name')).toBe('Harbour');
  });

  it('a tag: the refused name stays', async () => {
    openConsole(
      '/admin/people',
      'admin',
      ...people(),
      reply('post', '/api/v1/tags', () => refused(409, 'already_exists')),
    );
    fireEvent.change(await screen.findByLabelText('New tag'), { target: { value: 'perimeter' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add tag' }));
    expect((await screen.findByRole('alert')).textContent).toBe('That name is already taken: choose another.');
    expect(value('tag-name')).toBe('perimeter');
  });

  it('a template: the refused name and document stay', async () => {
    openConsole(
      '/admin/templates',
      'admin',
      answer('get', '/api/v1/templates', { rows: [], next: null }),
      reply('post', '/api/v1/templates', () => refused(409, 'already_exists')),
    );
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'Plates' } });
    const doc = '{"detector_match": "lpr.*"}';
    fireEvent.change(document.querySelector('textarea[name="template-doc"]')!, { target: { value: doc } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect((await screen.findByRole('alert')).textContent).toBe('That name is already taken: choose another.');
    expect(value('template-name')).toBe('Plates');
    expect(document.querySelector<HTMLTextAreaElement>('textarea[name="template-doc"]')!.value).toBe(doc);
  });
});
