/**
 * The console as a user meets it, against a mocked plane (issue 21 §4): the real shell, router
 * and pages, signed in with a role, the API answered by Mock Service Worker with bodies typed by
 * the plane's own schemas: the OpenAPI document the plane builds from its TypeBox schemas
 * (web/src/api/openapi.gen.ts), so a body the plane could not send fails the type check. Each
 * test file calls mockThePlane() once.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { cleanup, configure, render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { setupServer } from 'msw/node';
import { http, HttpResponse, type RequestHandler } from 'msw';
import type { Role } from '../../../src/common/console-pages.js';
import type { paths } from '../../../web/src/api/openapi.gen.js';
import { consoleRoutes } from '../../../web/src/app.js';
import { startRouter } from '../../../web/src/router.js';

export const plane = setupServer();

// A page's chunk (React.lazy) is transformed on its first import in a worker, which takes seconds
// on a loaded machine: a wait for what the user reads allows for it (a missing text still fails).
// CI's full run took 19 s for the profile page's first import beside the other files.
configure({ asyncUtilTimeout: 30_000 });

/** Starts the mocked plane for this file; a request nobody answers fails the test instead of hanging. */
export function mockThePlane(): void {
  beforeAll(() => plane.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    cleanup();
    plane.resetHandlers();
    localStorage.clear();
  });
  afterAll(() => plane.close());
}

export const ORG = '0190c0de-0000-7000-8000-0000000000a1';

export function me(role: Role): Body<'/api/v1/auth/me', 'get'> {
  return {
    user: {
      id: '0190c0de-0000-7000-8000-0000000000b1',
      org_id: ORG,
      login: `${role}-1`,
      name: `A ${role}`,
      role,
      disabled: false,
    },
    session: { id: '0190c0de-0000-7000-8000-0000000000b2', expires_at: '2030-01-01T00:00:00.000Z' },
  };
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The body of a route's success (200 or 201) as the plane's OpenAPI document describes it. */
export type Body<P extends keyof paths, M extends Method> = paths[P][M] extends {
  responses: { [S in 200 | 201]?: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

/** `/api/v1/cameras/{id}` as Mock Service Worker writes it (`:id`). */
const route = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * The plane answering `method path` with `body`, typed by that route's reply in the plane's
 * OpenAPI document: a field the plane does not send, or a missing one, fails the type check.
 */
export function answer<P extends keyof paths, M extends Method>(method: M, path: P, body: Body<P, M>) {
  return http[method](route(path), () => HttpResponse.json(body as never));
}
/** The plane answering `method path` with `reply` (a refusal, or `never`). */
export const reply = (method: Method, path: keyof paths, f: () => Response | Promise<Response>) =>
  http[method](route(path), f);

/** A reply whose shape the test states itself (the plane's streams, which the OpenAPI document does not type). */
export const ok = (body: unknown) => HttpResponse.json(body as never);
/** A refusal as the plane words it (`{ error }`, plus the code's own fields). */
export const refused = (status: number, error: string, extra: Record<string, unknown> = {}) =>
  HttpResponse.json({ error, ...extra }, { status });
/** An answer that never comes: the page's loading state stays on screen. */
export const never = () => new Promise<Response>(() => {});

/**
 * Opens `path` in the console signed in as `role` (or signed out with `role: null`), the plane
 * answering with `handlers` (and `GET /auth/me` for the role).
 */
export function openConsole(path: string, role: Role | null, ...handlers: RequestHandler[]) {
  // Every page waits for the user's zone and clock (page-table.tsx): the plane's defaults unless a
  // test answers otherwise (its handlers come later and are asked first).
  plane.use(answer('get', '/api/v1/me/preferences', { timezone: null, clock: '24h', views: [] }));
  if (role) {
    localStorage.setItem('argus.session', `session-of-${role}`);
    plane.use(http.get('/api/v1/auth/me', () => ok(me(role))));
  }
  plane.use(...handlers);
  history.replaceState(null, '', path);
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const router = startRouter(consoleRoutes());
  render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { router, client };
}

/** The page's own area (inside the shell, below the navigation), once the shell shows it. */
export async function page() {
  return within(await screen.findByRole('main'));
}

export { http, screen };
