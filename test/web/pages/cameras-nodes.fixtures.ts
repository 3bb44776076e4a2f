/** What the cameras and nodes page tests share (issue 22): the mocked replies and the form's helpers. */
import { fireEvent } from '@testing-library/react';
import type { RequestHandler } from 'msw';
import { answer, openConsole as openConsoleOf, screen, type Body } from './console.harness.js';
import { NODE, camera } from './fixtures.js';

// The user's way of writing times (the nodes' last answer), asked by every page.
export const prefs = answer('get', '/api/v1/me/preferences', { timezone: null, clock: '24h', views: [] });
// No sweep has read the nodes yet, unless a test answers the cameras' ingest figures itself.
export const noFigures = answer('get', '/api/v1/cameras/ingest-figures', { rows: [] });
export const openConsole = (path: string, role: Parameters<typeof openConsoleOf>[1], ...handlers: RequestHandler[]) =>
  openConsoleOf(path, role, prefs, ...handlers, noFigures); // in one use(), the first handler that matches answers

export const TAG = '0190c0de-0000-7000-8000-0000000000f1';
export const tags = answer('get', '/api/v1/tags', {
  rows: [{ id: TAG, org_id: camera().org_id, name: 'north gate' }],
  next: null,
});
export const noTags = answer('get', '/api/v1/tags', { rows: [], next: null });
export const cameras = (...rows: ReturnType<typeof camera>[]) => answer('get', '/api/v1/cameras', { rows, next: null });

export type NodeRow = Body<'/api/v1/nodes', 'get'>['rows'][number];
export function node(over: Partial<NodeRow> = {}): NodeRow {
  return {
    id: NODE,
    name: 'site north',
    url: 'http://10.0.0.20:8081',
    enabled: true,
    state: 'reachable',
    last_seen_at: '2026-11-26T10:00:00.000Z',
    version: '1.4.0',
    api_token_configured: true,
    auth_backend_secret_configured: true,
    ...over,
  };
}
export const nodes = (...rows: NodeRow[]) => answer('get', '/api/v1/nodes', { rows, next: null });
export const licence = answer('get', '/api/v1/nodes/{id}/license', {
  state: 'ok',
  licensee: 'Example Ltd',
  expires: '2027-12-31',
  updates_until: null,
  build_date: '2026-11-01',
});

export const field = (name: string) => screen.getByLabelText<HTMLInputElement>(name);
export const type = (name: string, value: string) => fireEvent.change(field(name), { target: { value } });
/** The sentence shown beside a field: the error among the elements its aria-describedby names. */
export const besideOf = (name: string) => {
  const ids = field(name).getAttribute('aria-describedby')?.split(' ') ?? [];
  return (
    ids.map((id) => document.getElementById(id)).find((el) => el?.classList.contains('error'))?.textContent ?? null
  );
};
