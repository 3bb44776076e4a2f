import { lazy, Suspense, useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, keepSession, sessionToken, whenSessionExpires, type User } from './api/client.js';
import { Link, match, navigate, useLocation } from './router.js';
import { LoginPage } from './pages/login.js';
import { MeContext } from './api/me.js';
import { LivePage } from './pages/live.js';
import { FeedPage } from './pages/feed.js';
import { EventPage } from './pages/event.js';
import { CameraPage } from './pages/camera.js';
import { ErrorBoundary } from './components/error-boundary.js';
// The administrators' screens are chunks of their own: the core console does not carry them.
const TokensPage = lazy(() => import('./pages/admin/tokens.js').then((m) => ({ default: m.TokensPage })));
const SettingsPage = lazy(() => import('./pages/admin/settings.js').then((m) => ({ default: m.SettingsPage })));
const DashboardsList = lazy(() =>
  import('./pages/dashboards/dashboards.js').then((m) => ({ default: m.DashboardsList })),
);
const DashboardView = lazy(() =>
  import('./pages/dashboards/dashboards.js').then((m) => ({ default: m.DashboardView })),
);
const ReportsPage = lazy(() => import('./pages/dashboards/reports.js').then((m) => ({ default: m.ReportsPage })));
const PeoplePage = lazy(() => import('./pages/admin/people.js').then((m) => ({ default: m.PeoplePage })));
const UsagePage = lazy(() => import('./pages/admin/usage.js').then((m) => ({ default: m.UsagePage })));
const TemplatesPage = lazy(() => import('./pages/admin/templates.js').then((m) => ({ default: m.TemplatesPage })));
const NodePage = lazy(() => import('./pages/admin/node.js').then((m) => ({ default: m.NodePage })));
const OrgsPage = lazy(() => import('./pages/admin/orgs.js').then((m) => ({ default: m.OrgsPage })));
const MonitorPage = lazy(() => import('./pages/admin/monitor.js').then((m) => ({ default: m.MonitorPage })));
const AuditPage = lazy(() => import('./pages/admin/audit.js').then((m) => ({ default: m.AuditPage })));

/** What each role sees in the navigation (document 1 roles); every page checks its rights through the API anyway. */
const NAV: Array<{ to: string; label: string; roles: string[] }> = [
  { to: '/live', label: 'Live', roles: ['superadmin', 'admin', 'user'] },
  { to: '/feed', label: 'Events', roles: ['superadmin', 'admin', 'user'] },
  { to: '/dashboards', label: 'Dashboards', roles: ['superadmin', 'admin', 'user'] },
  { to: '/reports', label: 'Reports', roles: ['superadmin', 'admin', 'user'] },
  { to: '/admin/tokens', label: 'Module tokens', roles: ['superadmin', 'admin'] },
  { to: '/admin/templates', label: 'Templates', roles: ['superadmin', 'admin'] },
  { to: '/admin/people', label: 'People', roles: ['superadmin', 'admin'] },
  { to: '/admin/orgs', label: 'Organisations', roles: ['superadmin'] },
  { to: '/admin/usage', label: 'Usage', roles: ['superadmin', 'admin'] },
  { to: '/admin/audit', label: 'Audit', roles: ['superadmin', 'admin'] },
  { to: '/admin/monitor', label: 'Monitor', roles: ['superadmin'] },
  { to: '/admin/settings', label: 'Settings', roles: ['superadmin'] },
];

export function App() {
  const { path, search } = useLocation();
  const [token, setToken] = useState(sessionToken());
  const qc = useQueryClient();
  useEffect(
    () =>
      whenSessionExpires(() => {
        setToken(null);
        qc.clear();
        // Back to the login, the place kept for after it.
        navigate(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`, {
          replace: true,
        });
      }),
    [qc],
  );
  const me = useQuery({
    queryKey: ['me', token],
    enabled: !!token,
    queryFn: () => api<{ user: User }>('GET', '/api/v1/auth/me'),
  });

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

  let page: React.ReactNode;
  let p: Record<string, string> | null;
  if (path === '/' || path === '/live') page = <LivePage />;
  else if (path === '/feed') page = <FeedPage />;
  else if ((p = match('/events/:id', path))) page = <EventPage id={p.id!} />;
  else if ((p = match('/cameras/:id', path))) page = <CameraPage id={p.id!} />;
  else if (path === '/dashboards') page = <DashboardsList />;
  else if ((p = match('/dashboards/:id', path))) page = <DashboardView id={p.id!} />;
  else if (path === '/reports') page = <ReportsPage />;
  else if (path === '/admin/tokens') page = <TokensPage />;
  else if (path === '/admin/settings') page = <SettingsPage />;
  else if (path === '/admin/audit') page = <AuditPage />;
  else if (path === '/admin/monitor') page = <MonitorPage />;
  else if ((p = match('/admin/nodes/:id', path))) page = <NodePage id={p.id!} />;
  else if (path === '/admin/people') page = <PeoplePage />;
  else if (path === '/admin/templates') page = <TemplatesPage />;
  else if (path === '/admin/usage') page = <UsagePage />;
  else if (path === '/admin/orgs') page = <OrgsPage />;
  else page = <p className="empty">No such page.</p>;

  return (
    <div className="shell">
      <header className="top">
        <span className="brand">Argus</span>
        <nav>
          {NAV.filter((n) => n.roles.includes(user.role)).map((n) => (
            <Link key={n.to} to={n.to} className={path.startsWith(n.to) ? 'on' : ''}>
              {n.label}
            </Link>
          ))}
        </nav>
        <span className="who" title={user.role}>
          {user.name || user.login}
        </span>
        <button
          className="link"
          onClick={async () => {
            await api('POST', '/api/v1/auth/logout').catch(() => {});
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
            <Suspense fallback={<p className="empty">Loading…</p>}>{page}</Suspense>
          </ErrorBoundary>
        </MeContext.Provider>
      </main>
    </div>
  );
}
