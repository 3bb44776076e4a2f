// @vitest-environment happy-dom
/**
 * No control the plane would refuse the viewer (issue 22, document 1 as users.service and
 * org-removal.service hold it): an administrator is offered nothing on a superadmin, nobody
 * disables or deletes the own account, a superadmin is not offered deleting the organisation it
 * is in, an operator meets the role gate and no admin form.
 */
import { describe, expect, it } from 'vitest';
import { within } from '@testing-library/react';
import { answer, me, mockThePlane, openConsole, ORG, screen } from './console.harness.js';
import { organisation, OTHER_ORG, person } from './admin-fixtures.js';

mockThePlane();

const tags = answer('get', '/api/v1/tags', { rows: [], next: null });
const buttonsOf = (row: HTMLElement) =>
  within(row)
    .queryAllByRole('button')
    .map((b) => b.textContent);

describe('people (/admin/people)', () => {
  const boss = person('root', 'superadmin');
  const op = person('op-north', 'user');

  it('an administrator: nothing on a superadmin (its name read-only), everything on an operator, no Delete on itself', async () => {
    const self = person('admin-1', 'admin', { id: me('admin').user.id });
    openConsole('/admin/people', 'admin', answer('get', '/api/v1/users', { rows: [boss, op, self], next: null }), tags);
    const bossRow = (await screen.findByText('root')).closest('tr')!;
    expect(buttonsOf(bossRow)).toEqual([]);
    expect(within(bossRow).getByLabelText<HTMLInputElement>('root name').readOnly).toBe(true);
    expect(buttonsOf(screen.getByText('op-north').closest('tr')!)).toEqual([
      'Cameras',
      'Password',
      'Disable',
      'Delete',
    ]);
    // The own password is changed on the profile; the own account is neither disabled nor deleted.
    expect(buttonsOf(screen.getByText('admin-1').closest('tr')!)).toEqual([]);
  });

  it('a superadmin: the same controls on another superadmin as on anyone', async () => {
    openConsole('/admin/people', 'superadmin', answer('get', '/api/v1/users', { rows: [boss, op], next: null }), tags);
    const bossRow = (await screen.findByText('root')).closest('tr')!;
    expect(buttonsOf(bossRow)).toEqual(['Password', 'Disable', 'Delete']);
    expect(within(bossRow).getByLabelText<HTMLInputElement>('root name').readOnly).toBe(false);
  });
});

describe('organisations (/admin/orgs, superadmin)', () => {
  it('no Delete on the organisation the superadmin is in; Delete on another', async () => {
    openConsole(
      '/admin/orgs',
      'superadmin',
      answer('get', '/api/v1/orgs', {
        rows: [organisation(ORG, 'Home'), organisation(OTHER_ORG, 'Harbour')],
        next: null,
      }),
    );
    const other = (await screen.findByLabelText('Harbour name')).closest('tr')!;
    expect(buttonsOf(other)).toEqual(['Delete']);
    expect(buttonsOf(screen.getByLabelText('Home name').closest('tr')!)).toEqual([]);
  });
});

describe('an operator', () => {
  it.each(['/admin/people', '/admin/orgs', '/admin/tokens', '/admin/templates'])(
    'on %s reads "Not available to your role", and no form',
    async (path) => {
      // No handler for the page's reads: a request for them would fail the test.
      openConsole(path, 'user');
      expect(await screen.findByText('Not available to your role.')).toBeTruthy();
      expect(screen.queryByRole('form')).toBeNull();
      expect(screen.queryByRole('textbox')).toBeNull();
    },
  );
});
