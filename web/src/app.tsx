import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Navigate, Outlet, useParams, type RouteObject } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { mayOpen } from '../../src/common/console-pages.js';
import { keepSession, sessionToken, whenSessionExpires } from './api/client.js';
import { useMe as useSession, useSignOut } from './hooks/use-me.js';
import { currentPlace, Link, navigate, useLocation } from './router.js';
import { LoginPage } from './pages/login.js';
import { MeContext, useMe } from './api/me.js';
import { ErrorBoundary } from './components/error-boundary.js';
import { navigationFor, PAGES, type PageEntry } from './page-table.js';

// The critical-event alert comes with the signed-in shell, not with the login page: its API calls
// and stream reader would otherwise count against the login page's 90 kB (issue 22).
const CriticalToasts = lazy(() =>
  import('./components/critical-alerts.js').then((m) => ({ default: m.CriticalToasts })),
);

/**
 * The console's routes, read from the table of pages: the shell (session, navigation, one error
 * boundary per page) around each page of the table, the sign-in, the root that opens the live
 * grid, and "No such page." for any other address.
 */
export function consoleRoutes(): RouteObject[] {
  return [
    {
      element: <Shell />,
      errorElement: <ShellFailed />,
      children: [
        { path: '/', element: <Navigate to="/live" replace /> },
        // The shell shows the sign-in itself (it also does for any page opened signed out).
        { path: '/login', element: null },
        ...PAGES.map((entry) => ({ path: entry.path, element: <PageRoute entry={entry} /> })),
        { path: '*', element: <NoSuchPage /> },
      ],
    },
  ];
}

const NoSuchPage = () => <p className="empty">No such page.</p>;

/** A page of the table: its parameters, once the role may open it (the API refuses the rest anyway; this keeps its forms away). */
function PageRoute({ entry }: { entry: PageEntry }) {
  const params = useParams() as Record<string, string>;
  const { path } = useLocation();
  const me = useMe();
  if (!decodable(path)) return <NoSuchPage />;
  if (!me || !mayOpen(entry, me.role)) return <p className="empty">Not available to your role.</p>;
  return entry.page(params);
}

/** A malformed escape (`/events/%E0`) is no page, not an id the page would send to the API. */
function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** Only a failure of the shell itself reaches here: each page has its own boundary inside it. */
function ShellFailed() {
  return (
    <div className="boot" role="alert">
      The console could not be shown. <button onClick={() => window.location.reload()}>Reload</button>
    </div>
  );
}

function Shell() {
  const { path, search } = useLocation();
  const [token, setToken] = useState(sessionToken());
  const qc = useQueryClient();
  useEffect(
    () =>
      whenSessionExpires(() => {
        setToken(null);
        qc.clear();
        // Back to the login, the place kept for after it.
        navigate(`/login?next=${encodeURIComponent(currentPlace())}`, { replace: true });
      }),
    [qc],
  );
  const me = useSession(token);
  const signOut = useSignOut();

  if (!token || path === '/login') {
    // After the sign-in: the place kept by an ended session, else the deep link that was opened, else the live grid.
    const here = path === '/login' || path === '/' ? null : path + search;
    return (
      <LoginPage
        onSignedIn={(t) => {
          keepSession(t);
          setToken(t);
          const next = new URLSearchParams(search).get('next') ?? here;
          navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/live', { replace: true });
        }}
      />
    );
  }
  if (me.isPending) return <div className="boot">Loading…</div>;
  if (me.isError)
    return (
      <div className="boot">
        The plane did not answer. <button onClick={() => me.refetch()}>Retry</button>
      </div>
    );
  const user = me.data.user;

  return (
    <div className="shell">
      <header className="top">
        <span className="brand">Argus</span>
        <Menu role={user.role} path={path} />
        {/* A long name is cut with an ellipsis (styles.css); the whole of it and the role are its title.
            It opens the user's profile (zone, clock, password), as in most consoles. */}
        <Link to="/profile" className="who" title={`${user.name || user.login} (${user.role})`}>
          {user.name || user.login}
        </Link>
        <button
          className="link"
          onClick={async () => {
            await signOut.run().catch(() => {});
            keepSession(null);
            setToken(null);
            qc.clear();
            navigate('/login', { replace: true });
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        <MeContext.Provider value={user}>
          <ErrorBoundary what="page" id={path} resetKey={path + search}>
            <Suspense fallback={<p className="empty">Loading the page…</p>}>
              <Outlet />
            </Suspense>
          </ErrorBoundary>
        </MeContext.Provider>
      </main>
      {/* The live alert for critical events (issue 24): off unless this browser turned it on. */}
      <Suspense fallback={null}>
        <CriticalToasts />
      </Suspense>
    </div>
  );
}

/**
 * The role's pages. On a wide screen they are a row in the header; on a phone (styles.css, at
 * most 640 px) a "Menu" button opens them as a list below it, so that every page of the role is
 * reachable at 390 px (a row of twelve does not fit). A choice, Escape or a click outside closes it.
 */
function Menu(props: { role: string; path: string }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => setOpen(false), [props.path]);
  useEffect(() => {
    if (!open) return;
    const key = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    const click = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', key);
    document.addEventListener('mousedown', click);
    return () => {
      document.removeEventListener('keydown', key);
      document.removeEventListener('mousedown', click);
    };
  }, [open]);
  return (
    <div className="menu" ref={box}>
      <button
        type="button"
        className="menu-button"
        aria-expanded={open}
        aria-controls="console-nav"
        onClick={() => setOpen((o) => !o)}
      >
        Menu
      </button>
      <nav
        id="console-nav"
        aria-label="Pages"
        className={open ? 'open' : ''}
        // A choice closes the menu, also the page already open (its path does not change).
        onClick={(e) => (e.target as Element).closest('a') && setOpen(false)}
      >
        {navigationFor(props.role).map((n) => (
          <Link key={n.path} to={n.path} className={props.path.startsWith(n.path) ? 'on' : ''}>
            {n.label}
          </Link>
        ))}
      </nav>
    </div>
  );
}
