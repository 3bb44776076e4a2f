import {
  createBrowserRouter,
  Link as RouterLink,
  useLocation as useRouterLocation,
  type RouteObject,
} from 'react-router';

/**
 * The console's navigation on React Router's data router (docs/console.md says why this one).
 * The pages use only this module's small surface (Link, navigate, useLocation), so they do not
 * depend on the router's own API; the routes themselves are built from the table of pages
 * (web/src/page-table.tsx) by the shell (web/src/app.tsx).
 */
export type ConsoleRouter = ReturnType<typeof createBrowserRouter>;

/** The router the console runs on: `navigate` outside a component (after a save, from a chart's click) moves it. */
let current: ConsoleRouter | null = null;

/** Starts the console's router over `routes` on the browser's history (a test's page starts its own, a new one each time). */
export function startRouter(routes: RouteObject[]): ConsoleRouter {
  current?.dispose();
  current = createBrowserRouter(routes);
  return current;
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  // Before the router starts there is nowhere to go: a silent no-op would hide the mistake.
  if (!current) throw new Error('navigate() before the console router started');
  void current.navigate(to, { replace: opts.replace ?? false });
}

/** The address shown now, path and query, as a place to come back to (the login's `next=`). */
export function currentPlace(): string {
  const l = current?.state.location;
  return l ? l.pathname + l.search : '/';
}

export function useLocation(): { path: string; search: string } {
  const l = useRouterLocation();
  return { path: l.pathname, search: l.search };
}

/** A link inside the console: a click moves the router, a ctrl/cmd/middle click opens a tab as any link does. */
export function Link(props: { to: string; children: React.ReactNode; className?: string; title?: string }) {
  return (
    <RouterLink to={props.to} className={props.className} title={props.title}>
      {props.children}
    </RouterLink>
  );
}
